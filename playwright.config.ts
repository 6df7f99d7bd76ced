/**
 * Playwright: the browser-mode end-to-end tests in Chromium (Debian's, or Playwright's own) (test/e2e/*.spec.ts),
 * and the desktop tests through Playwright's `_electron` (test/e2e/electron/), which
 * report themselves skipped where no Electron binary exists.
 */
import os from 'node:os';
import { defineConfig } from '@playwright/test';
import { findChromium } from './scripts/chromium.mjs';

/** Debian's Chromium, or Playwright's own where that is absent (undefined: Playwright's); see scripts/chromium.mjs. */
export const CHROMIUM_PATH = findChromium().path ?? undefined;
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
  // Generous, still bounded: the suite must pass while other jobs keep every core busy,
  // where a model-driven step (stream, tool, summary) can take several seconds to show.
  timeout: 90_000,
  expect: { timeout: 15_000 },
  fullyParallel: true,
  // One worker (a Chromium, a server, a model) per core: more only queue for the same cores.
  workers: Math.min(4, os.availableParallelism()),
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
    acceptDownloads: true,
    trace: 'retain-on-failure',
  },
});
