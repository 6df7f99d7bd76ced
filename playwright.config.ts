/**
 * Playwright: the browser-mode end-to-end tests in Debian's Chromium (test/e2e/*.spec.ts),
 * and the desktop tests through Playwright's `_electron` (test/e2e/electron/), which
 * report themselves skipped where no Electron binary exists.
 */
import { defineConfig } from '@playwright/test';

export const CHROMIUM_PATH = process.env.LOOM_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.spec.ts',
  globalSetup: './test/e2e/global-setup.ts',
  timeout: 30_000,
  expect: { timeout: 5_000 },
  fullyParallel: true,
  workers: process.env.CI ? 2 : 4,
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
    acceptDownloads: true,
    trace: 'retain-on-failure',
  },
});
