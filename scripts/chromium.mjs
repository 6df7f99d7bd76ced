// Which Chromium the end-to-end tests and the UI bench drive: LOOM_CHROMIUM when set,
// else Debian's (/usr/bin/chromium), else the one `npx playwright install chromium` put in
// Playwright's cache (macOS, Windows, other Linux distributions).
import fs from 'node:fs';
import { chromium } from 'playwright-core';

export const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/** { path, source } of the Chromium to use, or { path: null, problem } when there is none. */
export function findChromium(env = process.env) {
  if (env.LOOM_CHROMIUM) {
    return fs.existsSync(env.LOOM_CHROMIUM)
      ? { path: env.LOOM_CHROMIUM, source: 'LOOM_CHROMIUM' }
      : { path: null, problem: `LOOM_CHROMIUM names ${env.LOOM_CHROMIUM}, which does not exist` };
  }
  if (fs.existsSync(DEBIAN_CHROMIUM)) return { path: DEBIAN_CHROMIUM, source: 'Debian' };
  const playwrights = chromium.executablePath();
  if (playwrights && fs.existsSync(playwrights)) return { path: playwrights, source: 'Playwright' };
  return {
    path: null,
    problem:
      'no Chromium for the end-to-end tests (Debian: sudo apt-get install -y chromium; elsewhere: npx playwright install chromium; or set LOOM_CHROMIUM)',
  };
}
