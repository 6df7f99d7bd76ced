/**
 * Guarantee 11 in the page: a session whose messages sit on a broken page of loom.db shows
 * the damaged-database line with the way out (not "Unexpected error"), and loom.db is not
 * changed by the browser mode reading it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { databasePath } from '../../src/core/store/db';
import { startBrowserMode, type BrowserMode } from '../../src/server/browser-mode';
import { breakMessagesPage, fillStore, sha256 } from '../store/damage-helpers';
import { STATIC_DIR, expect, sidebarRow, test } from './fixtures';

test('opening a session on a broken page shows the damaged-database line and leaves loom.db as it was', async ({ page }) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-e2e-damage-'));
  const dataDir = path.join(root, 'data');
  let mode: BrowserMode | undefined;
  try {
    const victim = breakMessagesPage(dataDir, fillStore(dataDir, 30), root);
    const hash = sha256(databasePath(dataDir));
    // No model is needed to read sessions: the base URL points nowhere.
    mode = await startBrowserMode({
      dataDir,
      projectDir: root,
      staticDir: STATIC_DIR,
      overrides: { baseUrl: 'http://127.0.0.1:9/v1', model: 'gemma4', apiKey: '' },
      env: {},
    });
    await page.goto(mode.url);
    const title = `Session ${victim.index}`;
    await sidebarRow(page, title)
      .getByRole('button', { name: new RegExp(`^${title} `) })
      .click();

    const banner = page.getByRole('alert').filter({ hasText: 'is damaged' });
    await expect(banner).toContainText(
      'The session database loom.db is damaged (database disk image is malformed). Run `loom --doctor` to check it and salvage what can be read into a new file; the original is left as it is.',
    );
    await expect(page.getByText(/Unexpected error/)).toHaveCount(0);
    await mode.close();
    mode = undefined;
    expect(sha256(databasePath(dataDir))).toBe(hash);
  } finally {
    await mode?.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
