/**
 * The browser-mode harness for every end-to-end test: a throw-away data folder and
 * project folder (given as --project unless a spec says otherwise), the scripted model server, and Loom's browser mode serving the built
 * UI — all real, all started by the test and removed after it.
 */
import { test as base, expect, type Page } from '@playwright/test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBrowserMode, type BrowserMode } from '../../src/server/browser-mode';
import type { SessionStore } from '../../src/core/store/session-store';
import { startScriptedServer, type ScriptedReply, type ScriptedServer } from '../support/scripted-server';

export interface LoomHarness {
  url: string;
  model: ScriptedServer;
  mode: BrowserMode;
  store: SessionStore;
  dataDir: string;
  projectDir: string;
}

/** The run's private copy of the built UI (global-setup.ts). */
export const STATIC_DIR = process.env.LOOM_E2E_STATIC ?? path.resolve('out/renderer');

/**
 * Closes the harness's server and starts another on the same data and project folders (a new
 * access token, as a real restart gives), on `port` when given; the caller closes it.
 */
export async function restartLoom(loom: LoomHarness, port?: number): Promise<BrowserMode> {
  await loom.mode.close();
  return startBrowserMode({
    dataDir: loom.dataDir,
    projectDir: loom.projectDir,
    staticDir: STATIC_DIR,
    ...(port === undefined ? {} : { port }),
    overrides: { baseUrl: loom.model.baseUrl, model: 'gemma4', apiKey: '' },
    env: {},
  });
}

export const test = base.extend<{ loom: LoomHarness; pageErrors: void; mcpServers: Record<string, unknown> | null; preselectProject: boolean }>({
  /** The `mcpServers` of the data folder's mcp.json, written before Loom starts (test.use({ mcpServers })); null: no file. */
  mcpServers: [null, { option: true }],
  /**
   * Loom starts with `--project <projectDir>` (new sessions go there, as every spec but the
   * project folder's expects); false: as on a first start without it, the window asks for a folder.
   */
  preselectProject: [true, { option: true }],
  /** Fails any test whose page threw, or broke the CSP (a sign of inline code or styles). */
  pageErrors: [
    async ({ page }, use) => {
      const problems: string[] = [];
      page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error' && /Content[- ]Security[- ]Policy/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
      });
      await use();
      expect(problems).toEqual([]);
    },
    { auto: true },
  ],
  /**
   * Everything a test talks to, each test its own: data and project folders, the model
   * server and the browser mode, each ready (listening) before the test starts. Teardown
   * also runs after a timeout, with the test's own code possibly still going: every step
   * runs even if one before it failed, and closing is idempotent (mode.close stops
   * serving, lets the calls in flight end, then closes the store).
   */
  loom: async ({ mcpServers, preselectProject }, use) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-e2e-data-'));
    if (mcpServers) fs.writeFileSync(path.join(dataDir, 'mcp.json'), JSON.stringify({ mcpServers }));
    const projectDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-e2e-project-')));
    let model: ScriptedServer | undefined;
    let mode: BrowserMode | undefined;
    try {
      model = await startScriptedServer();
      mode = await startBrowserMode({
        dataDir,
        projectDir: preselectProject ? projectDir : undefined,
        staticDir: STATIC_DIR,
        overrides: { baseUrl: model.baseUrl, model: 'gemma4', apiKey: '' },
        env: {},
      });
      await use({ url: mode.url, model, mode, store: mode.backend.store, dataDir, projectDir });
    } finally {
      try {
        await mode?.close();
      } finally {
        await model?.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
        fs.rmSync(projectDir, { recursive: true, force: true });
      }
    }
  },
});

export { expect };

/** Opens Loom and waits until the window is ready. */
export async function openLoom(page: Page, loom: LoomHarness): Promise<void> {
  await page.goto(loom.url);
  await expect(page.getByRole('complementary', { name: 'Sessions' })).toBeVisible();
}

/** The reply the engine asks for after a session's first exchange (the listing summary). */
export const SUMMARY = (text: string): ScriptedReply => ({ text });

/** Starts a new session from the sidebar and waits for its message box. */
export async function newSession(page: Page): Promise<void> {
  // The session is made (its project instructions read) before its tab opens: wait for that tab, not
  // for a message box that an open tab may already show.
  const tabs = page.getByRole('tablist', { name: 'Open sessions' }).getByRole('tab');
  const before = await tabs.count();
  await page.getByRole('button', { name: 'New session' }).first().click();
  await expect(tabs).toHaveCount(before + 1);
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeEnabled();
}

/** Waits for the previous turn to end, types a message and sends it with Enter. */
export async function send(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await expect(page.getByRole('button', { name: 'Send' })).toBeEnabled();
  await box.press('Enter');
}

export function transcript(page: Page) {
  return page.getByRole('log', { name: 'Transcript' });
}

export function sidebarRow(page: Page, name: string | RegExp) {
  return page.getByRole('complementary', { name: 'Sessions' }).getByRole('listitem').filter({ hasText: name });
}

/** Expands the sidebar's folded families (docs/DESIGN.md#the-sidebar), so that each branch has its row. */
export async function expandFamilies(page: Page): Promise<void> {
  const toggles = page.getByRole('complementary', { name: 'Sessions' }).getByRole('button', { name: / branches of /, expanded: false });
  await expect(toggles.first()).toBeVisible();
  while ((await toggles.count()) > 0) await toggles.first().click();
}

/** Opens a session's action menu in the sidebar and picks an action. */
export async function sessionAction(page: Page, name: string | RegExp, action: string | RegExp): Promise<void> {
  await sidebarRow(page, name)
    .getByRole('button', { name: /^Actions for / })
    .click();
  await page.getByRole('menu').getByRole('menuitem', { name: action }).click();
}
