/**
 * The desktop app's decisions, run under Node through the adapter interfaces (the
 * Electron binary cannot run here): the IPC registration over the whole contract with its
 * sender check, the window hardening, and the drag-export temporary file.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { METHOD_NAMES, type BridgeResult } from '../../src/shared/contract';
import { CONTENT_SECURITY_POLICY_HEADER } from '../../src/shared/security-policy';
import { DragFiles } from '../../src/main/adapters/drag-export';
import { appUrlMatcher, hardenContents, hardenSession, isWebLink, withCsp } from '../../src/main/adapters/window-security';
import { registerBridge, type SenderInfo } from '../../src/main/ipc';
import { recordingHandlers } from './helpers';

type Listener = (event: unknown, input: unknown) => Promise<BridgeResult>;

function fakeIpc() {
  const channels = new Map<string, Listener>();
  return {
    channels,
    handle: (channel: string, listener: Listener) => void channels.set(channel, listener),
    removeHandler: (channel: string) => void channels.delete(channel),
  };
}

const APP_URL = 'file:///opt/loom/out/renderer/index.html';
const isAppUrl = appUrlMatcher(APP_URL, undefined);

describe('IPC bridge', () => {
  it('registers one channel per contract method and unregisters them all', () => {
    const ipc = fakeIpc();
    const off = registerBridge(ipc, recordingHandlers().handlers, () => ({ url: APP_URL, isMainFrame: true }), isAppUrl);
    expect([...ipc.channels.keys()].sort()).toEqual(METHOD_NAMES.map((m) => `loom:invoke:${m}`).sort());
    off();
    expect(ipc.channels.size).toBe(0);
  });

  it('answers the app page, validates input, and refuses other senders before any handler runs', async () => {
    const ipc = fakeIpc();
    const { handlers, calls } = recordingHandlers({ 'sessions.list': [] });
    let sender: SenderInfo = { url: APP_URL, isMainFrame: true };
    registerBridge(ipc, handlers, () => sender, isAppUrl);
    const list = ipc.channels.get('loom:invoke:sessions.list')!;

    expect(await list({}, { includeArchived: true })).toEqual({ ok: true, value: [] });
    expect(await list({}, { includeArchived: 'yes' })).toMatchObject({ ok: false, error: { code: 'bad_input' } });

    for (const foreign of [
      { url: 'https://evil.example/', isMainFrame: true },
      { url: APP_URL, isMainFrame: false },
      { url: 'file:///tmp/other.html', isMainFrame: true },
      { url: undefined, isMainFrame: true },
    ]) {
      sender = foreign;
      expect(await list({}, {})).toEqual({ ok: false, error: { code: 'forbidden', message: 'Refused: the request did not come from the Loom window.' } });
    }
    expect(calls).toEqual([{ method: 'sessions.list', input: { includeArchived: true, limit: 100 } }]);
  });
});

describe('window hardening', () => {
  it('sets the CSP on every response, replacing any other', () => {
    expect(withCsp({ 'content-security-policy': ['default-src *'], 'X-Other': ['1'] })).toEqual({
      'X-Other': ['1'],
      'Content-Security-Policy': [CONTENT_SECURITY_POLICY_HEADER],
    });
    expect(CONTENT_SECURITY_POLICY_HEADER).not.toMatch(/unsafe-eval|unsafe-inline/);
  });

  it('denies every permission request and check but notifications', () => {
    let requestHandler: ((c: unknown, p: string, cb: (granted: boolean) => void) => void) | undefined;
    let checkHandler: ((c: unknown, p: string) => boolean) | undefined;
    hardenSession({
      webRequest: { onHeadersReceived: () => {} },
      setPermissionRequestHandler: (h) => void (requestHandler = h),
      setPermissionCheckHandler: (h) => void (checkHandler = h),
    });
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal']) {
      let granted: boolean | undefined;
      requestHandler!({}, permission, (g) => (granted = g));
      expect(granted, permission).toBe(permission === 'notifications');
      expect(checkHandler!({}, permission), permission).toBe(permission === 'notifications');
    }
  });

  it('blocks navigation and webviews, and opens only web links outside', () => {
    const listeners = new Map<string, (event: { preventDefault(): void }) => void>();
    let openHandler: ((d: { url: string }) => { action: 'deny' }) | undefined;
    const opened: string[] = [];
    hardenContents({ on: (name, listener) => listeners.set(name, listener), setWindowOpenHandler: (h) => void (openHandler = h) }, (url) => opened.push(url));
    for (const name of ['will-navigate', 'will-redirect', 'will-attach-webview']) {
      let prevented = false;
      listeners.get(name)!({ preventDefault: () => (prevented = true) });
      expect(prevented, name).toBe(true);
    }
    for (const url of ['https://example.com/doc', 'file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share']) {
      expect(openHandler!({ url })).toEqual({ action: 'deny' });
    }
    expect(opened).toEqual(['https://example.com/doc']);
    expect(isWebLink('http://localhost:3000')).toBe(true);
    expect(isWebLink('not a url')).toBe(false);
  });

  it('recognises the app page and the dev server only', () => {
    const withDev = appUrlMatcher(APP_URL, 'http://localhost:5173/');
    expect(withDev('file:///opt/loom/out/renderer/index.html#x')).toBe(true);
    expect(withDev('http://localhost:5173/index.html')).toBe(true);
    expect(withDev('http://localhost:5174/')).toBe(false);
    expect(isAppUrl('http://localhost:5173/')).toBe(false);
    expect(isAppUrl('file:///opt/loom/out/renderer/other.html')).toBe(false);
  });
});

describe('drag-export file', () => {
  it('writes the export under its own name in a private folder and removes the previous one', () => {
    const drag = new DragFiles();
    const first = drag.write({ filename: 'My notes.json', mimeType: 'application/json', text: '{"a":1}\n' });
    expect(first.endsWith('/My notes.json')).toBe(true);
    expect(fs.readFileSync(first, 'utf8')).toBe('{"a":1}\n');
    expect(fs.statSync(first).mode & 0o777).toBe(0o600);
    const second = drag.write({ filename: '../escape.json', mimeType: 'application/json', text: '{}' });
    expect(second.endsWith('/escape.json')).toBe(true);
    expect(fs.existsSync(first)).toBe(false);
    drag.cleanUp();
    expect(fs.existsSync(second)).toBe(false);
  });
});
