// CI: fetch Electron's binary before the tests, or fail with the one-line reason (npm start
// does the same on first start). better-sqlite3 needs nothing: Electron loads its npm build.
import { fetchElectron } from './electron-setup.mjs';

const problem = fetchElectron();
if (problem) {
  console.error(`loom: ${problem}`);
  process.exit(1);
}
console.log('Electron is in place.');
