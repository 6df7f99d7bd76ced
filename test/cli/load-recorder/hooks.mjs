// Appends the URL of each module loaded to the file named by LOOM_LOAD_LOG, then loads it as usual.
import fs from 'node:fs';

export async function load(url, context, nextLoad) {
  fs.appendFileSync(process.env.LOOM_LOAD_LOG, `${url}\n`);
  return nextLoad(url, context);
}
