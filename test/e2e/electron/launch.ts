/**
 * Launching the desktop app through Playwright's Electron driver for the desktop tests.
 * They need Electron's binary (`npm start` and scripts/fetch-electron.mjs fetch it) and a
 * display; where either is missing they are reported as skipped, with the reason, never
 * passed. better-sqlite3 needs nothing more: Electron loads the npm package's Node-API build.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { _electron as electron, expect, test, type ElectronApplication, type Page } from '@playwright/test';
import { electronBinary, root } from '../../../scripts/electron-setup.mjs';
import { startScriptedServer, type ScriptedServer } from '../../support/scripted-server';

export { electronBinary, root };

function whyNot(): string | null {
  if (!electronBinary()) return 'no Electron binary (npm start fetches it where the network allows)';
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return 'no display';
  return null;
}

/** Marks the calling spec file skipped, with the reason, where the desktop app cannot start. */
export function skipWithoutElectron(): void {
  const reason = whyNot();
  test.skip(reason !== null, `Desktop tests skipped: ${reason}`);
}

export interface Desktop {
  app: ElectronApplication;
  window: Page;
  model: ScriptedServer;
  dataDir: string;
}

/** Starts the app on a fresh data folder (prepared by `seed` before launch) and waits for its sidebar. */
export async function launchDesktop(seed: (dataDir: string) => void = () => {}): Promise<Desktop> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-electron-'));
  seed(dataDir);
  const model = await startScriptedServer();
  const app = await electron.launch({
    executablePath: electronBinary()!,
    args: [root],
    env: { ...process.env, LOOM_HOME: dataDir, LOOM_BASE_URL: model.baseUrl, LOOM_MODEL: 'gemma4' },
  });
  const window = await app.firstWindow();
  await expect(window.getByRole('complementary', { name: 'Sessions' })).toBeVisible();
  return { app, window, model, dataDir };
}

export async function closeDesktop(desktop: Desktop | undefined): Promise<void> {
  if (!desktop) return;
  await desktop.app.close();
  await desktop.model.close();
  fs.rmSync(desktop.dataDir, { recursive: true, force: true });
}
