/**
 * The desktop app through Playwright's Electron driver: the window's isolation, a chat,
 * rename and delete, the single-instance lock. Skipped, with the reason, where the app
 * cannot start (test/e2e/electron/launch.ts).
 */
import { _electron as electron, expect, test, type ElectronApplication, type Page } from '@playwright/test';
import type { ScriptedServer } from '../../support/scripted-server';
import { closeDesktop, electronBinary, launchDesktop, root, skipWithoutElectron, type Desktop } from './launch';

skipWithoutElectron();

let desktop: Desktop;
let app: ElectronApplication;
let window: Page;
let model: ScriptedServer;
let dataDir: string;

test.beforeEach(async () => {
  desktop = await launchDesktop();
  ({ app, window, model, dataDir } = desktop);
});

test.afterEach(() => closeDesktop(desktop));

test('the window is isolated: window.loom only, no Node, strict CSP', async () => {
  const globals = await window.evaluate(() => {
    const scope = globalThis as unknown as Record<string, unknown>;
    return { loom: typeof scope.loom, require: typeof scope.require, process: typeof scope.process, methods: Object.keys(scope.loom as object) };
  });
  expect(globals).toEqual({ loom: 'object', require: 'undefined', process: 'undefined', methods: ['invoke', 'onEvent'] });
  const evalBlocked = await window.evaluate(() => {
    try {
      return (0, eval)('1 + 1') !== 2;
    } catch {
      return true;
    }
  });
  expect(evalBlocked).toBe(true);
});

test('a new session streams a reply; rename and delete work from the sidebar', async () => {
  model.enqueue({ text: 'Hello from **Electron**.' }, { text: 'Desktop greeting' });
  await window.getByRole('button', { name: 'New session' }).first().click();
  const box = window.getByRole('textbox', { name: 'Message' });
  await box.fill('Hi');
  await box.press('Enter');
  await expect(window.getByRole('log', { name: 'Transcript' }).locator('strong')).toHaveText('Electron');

  const row = window.getByRole('complementary', { name: 'Sessions' }).getByRole('listitem').first();
  await row.getByRole('button', { name: /^Actions for / }).click();
  await window.getByRole('menuitem', { name: 'Rename…' }).click();
  await window.getByRole('dialog', { name: 'Rename session' }).getByRole('textbox', { name: 'Title' }).fill('Desk notes');
  await window.getByRole('button', { name: 'Rename', exact: true }).click();
  await expect(row).toContainText('Desk notes');

  await row.getByRole('button', { name: /^Actions for / }).click();
  await window.getByRole('menuitem', { name: 'Delete…' }).click();
  await window.getByRole('dialog', { name: 'Delete session?' }).getByRole('button', { name: 'Delete' }).click();
  await expect(window.getByRole('complementary', { name: 'Sessions' }).getByRole('listitem')).toHaveCount(0);
});

test('a second launch focuses the first window instead of opening another app', async () => {
  const second = await electron.launch({ executablePath: electronBinary()!, args: [root], env: { ...process.env, LOOM_HOME: dataDir } }).catch(() => null);
  if (second) {
    await expect.poll(() => second.windows().length).toBe(0);
    await second.close().catch(() => {});
  }
  expect(app.windows()).toHaveLength(1);
});
