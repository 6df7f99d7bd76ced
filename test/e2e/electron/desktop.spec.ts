/**
 * The desktop app through Playwright's Electron driver: the main flows in the real
 * window. They need Electron's binary, its build of better-sqlite3 (`npm start` fetches
 * both) and a display; where any is missing they are reported as skipped, not passed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { _electron as electron, expect, test, type ElectronApplication, type Page } from '@playwright/test';
import { startScriptedServer, type ScriptedServer } from '../../support/scripted-server';

const root = path.resolve('.');
const electronDir = path.join(root, 'node_modules/electron');

function electronBinary(): string | null {
  try {
    const binary = path.join(electronDir, 'dist', fs.readFileSync(path.join(electronDir, 'path.txt'), 'utf8').trim());
    return fs.existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

function whyNot(): string | null {
  if (!electronBinary()) return 'no Electron binary (npm start fetches it where the network allows)';
  if (!fs.existsSync(path.join(root, '.electron-native/better_sqlite3.node'))) return 'no Electron build of better-sqlite3 in .electron-native/';
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return 'no display';
  return null;
}

const reason = whyNot();
test.skip(reason !== null, `Desktop tests skipped: ${reason}`);

let app: ElectronApplication;
let window: Page;
let model: ScriptedServer;
let dataDir: string;

test.beforeEach(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-electron-'));
  model = await startScriptedServer();
  app = await electron.launch({
    executablePath: electronBinary()!,
    args: [root],
    env: { ...process.env, LOOM_HOME: dataDir, LOOM_BASE_URL: model.baseUrl, LOOM_MODEL: 'gemma4' },
  });
  window = await app.firstWindow();
  await expect(window.getByRole('complementary', { name: 'Sessions' })).toBeVisible();
});

test.afterEach(async () => {
  await app?.close();
  await model?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

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
