/**
 * Guarantee 8: the API key goes only where the user sent it. Two real scripted model
 * servers, A and B, stand for two providers; the settings are changed the way the settings
 * dialog changes them, through the browser mode's real HTTP server and through the desktop
 * app's IPC registration over its keychain-backed store (run under Node: Electron cannot
 * run here). What each server received, and what is on disk, is what is checked.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Conf from 'conf';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BridgeResult, MethodName, Settings } from '../../src/shared/contract';
import type { SessionMeta } from '../../src/shared/types';
import { DesktopSettingsStore, type SecretCipher } from '../../src/main/adapters/settings-store';
import { registerBridge } from '../../src/main/ipc';
import { openBackend, type Backend } from '../../src/backend/backend';
import { startBrowserMode, type BrowserMode, type BrowserModeOptions } from '../../src/server/browser-mode';
import { request } from '../bridge/helpers';
import { startScriptedServer, type ReceivedRequest, type ScriptedServer } from '../support/scripted-server';

const TOKEN = 'api-key-scope-token';
const KEY_A = 'sk-key-for-server-a-0001';
const KEY_B = 'sk-key-for-server-b-0002';

type Call = <T>(method: MethodName, input: unknown) => Promise<T>;

let root: string;
let dataDir: string;
let a: ScriptedServer;
let b: ScriptedServer;
const cleanups: (() => Promise<void> | void)[] = [];

beforeEach(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-keyscope-')));
  dataDir = path.join(root, 'data');
  a = await startScriptedServer();
  b = await startScriptedServer();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await a.close();
  await b.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** The browser mode on `dataDir`, driven over real HTTP with its token and Host. */
async function browserMode(options: Partial<BrowserModeOptions> = {}): Promise<{ call: Call; mode: BrowserMode }> {
  const mode = await startBrowserMode({ dataDir, staticDir: null, projectDir: root, token: TOKEN, env: {}, ...options });
  cleanups.push(() => mode.close());
  const call: Call = async (method, input) => {
    const res = await request(mode.server.port, {
      method: 'POST',
      path: `/api/${method}`,
      headers: { host: `127.0.0.1:${mode.server.port}`, 'x-loom-token': TOKEN, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    const result = JSON.parse(res.body) as BridgeResult<never>;
    if (!result.ok) throw new Error(`${method}: ${result.error.message}`);
    return result.value;
  };
  return { call, mode };
}

/** A reversible stand-in for the OS keychain (safeStorage needs Electron). */
const keychain: SecretCipher = {
  isEncryptionAvailable: () => true,
  encryptString: (plain) => Buffer.from([...Buffer.from(plain)].map((byte) => byte ^ 0x5a)),
  decryptString: (encrypted) => Buffer.from([...encrypted].map((byte) => byte ^ 0x5a)).toString(),
};

/** The desktop app's backend and IPC registration, as src/main/index.ts builds them. */
function desktopApp(): { call: Call; file: Conf<Record<string, unknown>> } {
  const file = new Conf<Record<string, unknown>>({ cwd: dataDir, configName: 'desktop-settings', projectName: 'loom-test' });
  const backend: Backend = openBackend({ dataDir, settingsStore: new DesktopSettingsStore(file, keychain), shell: 'desktop', projectDir: root, env: {} });
  cleanups.push(() => backend.close());
  const channels = new Map<string, (event: unknown, input: unknown) => Promise<BridgeResult>>();
  const appUrl = 'file:///opt/loom/out/renderer/index.html';
  registerBridge(
    { handle: (channel, listener) => void channels.set(channel, listener), removeHandler: (channel) => void channels.delete(channel) },
    backend.handlers,
    () => ({ url: appUrl, isMainFrame: true }),
    (url) => url === appUrl,
  );
  const call: Call = async (method, input) => {
    const result = (await channels.get(`loom:invoke:${method}`)!({}, input)) as BridgeResult<never>;
    if (!result.ok) throw new Error(`${method}: ${result.error.message}`);
    return result.value;
  };
  return { call, file };
}

/** One first turn in a new session (the reply, then its listing label); returns what `server` received. */
async function converse(call: Call, server: ScriptedServer): Promise<ReceivedRequest[]> {
  const before = server.requests.length;
  server.enqueue({ text: 'Hello there.' }, { text: 'Greeting' });
  const session = await call<SessionMeta>('chat.create', {});
  expect(await call('chat.send', { sessionId: session.id, text: 'hi' })).toEqual({ error: null });
  // The listing label is asked for in the background once the turn has ended.
  await vi.waitFor(() => expect(server.requests.length - before).toBe(2), { timeout: 15_000 });
  return server.requests.slice(before);
}

const authorizations = (received: ReceivedRequest[]) => received.map((r) => r.headers.authorization ?? 'none');

/** The dialog always sends the whole form: URL, model, budget, mode and theme, plus a key if typed. */
const dialogSave = (baseUrl: string, apiKey?: string) => ({
  baseUrl,
  model: 'gemma4',
  maxContextTokens: 24000,
  mode: 'default',
  theme: 'system',
  ...(apiKey ? { apiKey } : {}),
});

describe('guarantee 8: the API key goes only where the user sent it', () => {
  it('browser mode: a new URL without a key sends no key there, and the old key never comes back', async () => {
    const { call } = await browserMode();
    const settingsFile = path.join(dataDir, 'settings.json');

    expect(await call<Settings>('settings.set', dialogSave(a.baseUrl, KEY_A))).toMatchObject({ baseUrl: a.baseUrl, hasApiKey: true });
    expect(authorizations(await converse(call, a))).toEqual([`Bearer ${KEY_A}`, `Bearer ${KEY_A}`]);

    // The attack: the URL is pointed at another server and the key is not re-entered.
    expect(await call<Settings>('settings.set', dialogSave(b.baseUrl))).toMatchObject({ baseUrl: b.baseUrl, hasApiKey: false });
    expect(fs.readFileSync(settingsFile, 'utf8')).not.toContain(KEY_A);
    expect(authorizations(await converse(call, b))).toEqual(['none', 'none']);

    // A key entered with the new URL goes there, and only there.
    const aBefore = a.requests.length;
    expect(await call<Settings>('settings.set', dialogSave(b.baseUrl, KEY_B))).toMatchObject({ hasApiKey: true });
    expect(authorizations(await converse(call, b))).toEqual([`Bearer ${KEY_B}`, `Bearer ${KEY_B}`]);
    expect(a.requests.length).toBe(aBefore);

    // Back to A: neither A's old key nor B's key is sent.
    expect(await call<Settings>('settings.set', { baseUrl: a.baseUrl })).toMatchObject({ baseUrl: a.baseUrl, hasApiKey: false });
    expect(authorizations(await converse(call, a))).toEqual(['none', 'none']);
    const saved = fs.readFileSync(settingsFile, 'utf8');
    expect(saved).not.toContain(KEY_A);
    expect(saved).not.toContain(KEY_B);
  });

  it('browser mode: saving other settings keeps the key; saving the same URL keeps it', async () => {
    const { call } = await browserMode();
    await call('settings.set', dialogSave(a.baseUrl, KEY_A));
    expect(await call<Settings>('settings.set', { theme: 'dark', openTabs: [] })).toMatchObject({ hasApiKey: true });
    expect(await call<Settings>('settings.set', dialogSave(a.baseUrl))).toMatchObject({ hasApiKey: true });
    expect(authorizations(await converse(call, a))).toEqual([`Bearer ${KEY_A}`, `Bearer ${KEY_A}`]);
  });

  it('browser mode: a saved key is not sent to a URL given on the command line for one run', async () => {
    {
      const { call, mode } = await browserMode();
      await call('settings.set', dialogSave(a.baseUrl, KEY_A));
      await mode.close();
      cleanups.pop();
    }
    // `npm run web -- --base-url B`: the run talks to B, without A's key.
    const { call } = await browserMode({ overrides: { baseUrl: b.baseUrl } });
    expect(await call<Settings>('settings.get', {})).toMatchObject({ baseUrl: b.baseUrl, hasApiKey: false });
    expect(authorizations(await converse(call, b))).toEqual(['none', 'none']);
  });

  it('browser mode: a key saved before keys had a URL belongs to the environment URL only', async () => {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ apiKey: KEY_A }), { mode: 0o600 });
    const { call } = await browserMode({ env: { LOOM_BASE_URL: a.baseUrl } });
    expect(authorizations(await converse(call, a))).toEqual([`Bearer ${KEY_A}`, `Bearer ${KEY_A}`]);
    expect(await call<Settings>('settings.set', { baseUrl: b.baseUrl })).toMatchObject({ hasApiKey: false });
    expect(authorizations(await converse(call, b))).toEqual(['none', 'none']);
  });

  it('browser mode: LOOM_API_KEY goes only to the URL the environment names (LOOM_BASE_URL, else the default)', async () => {
    const { call } = await browserMode({ env: { LOOM_BASE_URL: a.baseUrl, LOOM_API_KEY: KEY_A, OPENAI_API_KEY: 'sk-openai-env' } });
    expect(await call<Settings>('settings.get', {})).toMatchObject({ baseUrl: a.baseUrl, hasApiKey: true });
    expect(authorizations(await converse(call, a))).toEqual([`Bearer ${KEY_A}`, `Bearer ${KEY_A}`]);

    expect(await call<Settings>('settings.set', { baseUrl: b.baseUrl })).toMatchObject({ hasApiKey: false });
    expect(authorizations(await converse(call, b))).toEqual(['none', 'none']);

    // The environment's key still belongs to the environment's URL: pointing back at A uses it.
    expect(await call<Settings>('settings.set', { baseUrl: a.baseUrl })).toMatchObject({ hasApiKey: true });
    expect(authorizations(await converse(call, a))).toEqual([`Bearer ${KEY_A}`, `Bearer ${KEY_A}`]);
    expect(fs.readFileSync(path.join(dataDir, 'settings.json'), 'utf8')).not.toContain(KEY_A);
  });

  it('browser mode: LOOM_API_KEY without LOOM_BASE_URL is not sent to a URL saved in the settings', async () => {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ baseUrl: b.baseUrl }), { mode: 0o600 });
    const { call } = await browserMode({ env: { LOOM_API_KEY: KEY_A } });
    expect(await call<Settings>('settings.get', {})).toMatchObject({ baseUrl: b.baseUrl, hasApiKey: false });
    expect(authorizations(await converse(call, b))).toEqual(['none', 'none']);
  });

  it('desktop app: the same rule holds over the keychain-backed store', async () => {
    const { call, file } = desktopApp();
    expect(await call<Settings>('settings.set', dialogSave(a.baseUrl, KEY_A))).toMatchObject({ hasApiKey: true });
    expect(file.store).toMatchObject({ baseUrl: a.baseUrl, apiKeyEncrypted: expect.any(String) });
    expect(authorizations(await converse(call, a))).toEqual([`Bearer ${KEY_A}`, `Bearer ${KEY_A}`]);

    expect(await call<Settings>('settings.set', dialogSave(b.baseUrl))).toMatchObject({ hasApiKey: false });
    expect(file.store).not.toHaveProperty('apiKeyEncrypted');
    expect(authorizations(await converse(call, b))).toEqual(['none', 'none']);

    await call('settings.set', dialogSave(b.baseUrl, KEY_B));
    expect(authorizations(await converse(call, b))).toEqual([`Bearer ${KEY_B}`, `Bearer ${KEY_B}`]);

    expect(await call<Settings>('settings.set', dialogSave(a.baseUrl))).toMatchObject({ hasApiKey: false });
    expect(file.store).not.toHaveProperty('apiKeyEncrypted');
    expect(authorizations(await converse(call, a))).toEqual(['none', 'none']);
  });
});
