/**
 * Guarantee 12: the browser-mode server is robust. The real browser mode (backend, store,
 * engine, HTTP server) on a fresh data folder, attacked over raw TCP sockets: malformed and
 * hostile request targets, clients that trickle their request (slowloris), an event stream
 * nobody reads, and a data folder on a small tmpfs that is filled to the last byte.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi, type TestContext } from 'vitest';
import type { BridgeEvent, BridgeResult, MethodName } from '../../src/shared/contract';
import type { SessionMeta, SessionPage } from '../../src/shared/types';
import { DISK_FULL_MESSAGE } from '../../src/core/disk-full';
import { startBrowserMode, type BrowserMode } from '../../src/server/browser-mode';
import { RECEIVE_LIMITS, startBridgeServer, type ReceiveLimits } from '../../src/server/http-server';
import { request, type RawResponse } from '../bridge/helpers';
import { buildLoom, runLoom } from '../cli/run-loom';
import { startScriptedServer, type ScriptedServer } from '../support/scripted-server';

const TOKEN = 'robustness-token';
/** Short limits so the mechanism is proven in seconds; RECEIVE_LIMITS are the production ones. */
const TEST_LIMITS: Partial<ReceiveLimits> = { headersMs: 1000, requestMs: 2000, checkEveryMs: 200 };
/** Far below Node's own defaults (60 s for headers, none for a body once headers are in). */
const CLOSE_BOUND_MS = 10_000;

let root: string;
let model: ScriptedServer;
let mode: BrowserMode;
let stderr: string[];
const cleanups: (() => Promise<void> | void)[] = [];
const writeToStderr = process.stderr.write.bind(process.stderr);

beforeEach(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-robust-')));
  model = await startScriptedServer();
  stderr = [];
  // Whatever the server prints, by either route, is caught here (and still shown).
  const stderrSpy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return writeToStderr(chunk);
  });
  const errorSpy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void stderr.push(args.map(String).join(' ')));
  cleanups.push(() => {
    stderrSpy.mockRestore();
    errorSpy.mockRestore();
  });
});

afterEach(async () => {
  // Every cleanup runs (a mount must come off even if a close failed); the first failure is reported.
  const failures: unknown[] = [];
  for (const cleanup of cleanups.splice(0).reverse())
    await Promise.resolve()
      .then(cleanup)
      .catch((err) => failures.push(err));
  await model.close();
  fs.rmSync(root, { recursive: true, force: true });
  if (failures.length) throw failures[0];
});

async function startMode(dataDir = path.join(root, 'data')): Promise<BrowserMode> {
  const staticDir = path.join(root, 'static');
  fs.mkdirSync(staticDir, { recursive: true });
  fs.writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><title>Loom</title>');
  const started = await startBrowserMode({
    dataDir,
    staticDir,
    projectDir: root,
    token: TOKEN,
    env: {},
    overrides: { baseUrl: model.baseUrl, model: 'gemma4', apiKey: '' },
    limits: TEST_LIMITS,
  });
  cleanups.push(() => started.close());
  return started;
}

const host = () => `127.0.0.1:${mode.server.port}`;

function api(method: MethodName, input: unknown): Promise<RawResponse> {
  return request(mode.server.port, {
    method: 'POST',
    path: `/api/${method}`,
    headers: { host: host(), 'x-loom-token': TOKEN, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
}

async function call<T>(method: MethodName, input: unknown): Promise<T> {
  const result = JSON.parse((await api(method, input)).body) as BridgeResult<T>;
  if (!result.ok) throw new Error(`${method}: ${result.error.message}`);
  return result.value;
}

/** Sends raw bytes and collects the answer until the server closes the connection. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.setEncoding('latin1').on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
  });
}

const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);

/**
 * Opens a socket, sends `opening`, then one more byte a second for as long as it stays
 * open. Resolves with how long the server took to close it (rejects past CLOSE_BOUND_MS).
 */
function trickle(port: number, opening: string): Promise<{ closedAfterMs: number; answer: string }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let answer = '';
    const socket = net.connect(port, '127.0.0.1', () => socket.write(opening));
    const drip = setInterval(() => socket.writable && socket.write('a'), 1000);
    const bound = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept a trickling client open for ${CLOSE_BOUND_MS} ms`));
    }, CLOSE_BOUND_MS);
    socket.setEncoding('latin1').on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => {}); // the server may reset it; 'close' follows either way
    socket.on('close', () => {
      clearInterval(drip);
      clearTimeout(bound);
      resolve({ closedAfterMs: Date.now() - started, answer });
    });
  });
}

/** Fills the file system holding `dir` to the last byte; returns the filler file. */
/** A fresh 3 MiB tmpfs under the test's folder, unmounted after the test; skips without root. */
function smallDisk(name: string, ctx: TestContext): string {
  const dataDir = path.join(root, name);
  fs.mkdirSync(dataDir, { mode: 0o700 });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m,mode=0700', 'tmpfs', dataDir], { stdio: 'pipe' });
  } catch (err) {
    ctx.skip(`cannot mount a small tmpfs to fill (needs root): ${String(err).split('\n')[0]}`);
  }
  cleanups.push(() => void execFileSync('umount', ['-l', dataDir]));
  return dataDir;
}

function fillDisk(dir: string): string {
  const filler = path.join(dir, 'filler.bin');
  const fd = fs.openSync(filler, 'w');
  try {
    for (const size of [1 << 20, 1 << 16, 4096, 1]) {
      const chunk = Buffer.alloc(size, 7);
      try {
        for (;;) fs.writeSync(fd, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return filler;
}

describe('guarantee 12: the browser-mode server is robust', () => {
  it('answers malformed and hostile request targets with 4xx, prints nothing, and keeps serving', async () => {
    mode = await startMode();
    const port = mode.server.port;
    const withToken = `Host: ${host()}\r\nx-loom-token: ${TOKEN}\r\nConnection: close\r\n`;
    const attacks: [string, string][] = [
      ['bad percent escape', `GET /% HTTP/1.1\r\n${withToken}\r\n`],
      ['truncated UTF-8 escape', `GET /%E0%A4%A HTTP/1.1\r\n${withToken}\r\n`],
      ['bad escape in a download ticket', `GET /download/%E0%A4%A HTTP/1.1\r\n${withToken}\r\n`],
      ['lone % in a download ticket', `GET /download/% HTTP/1.1\r\n${withToken}\r\n`],
      ['encoded traversal after /api/', `GET /api/..%2f HTTP/1.1\r\n${withToken}\r\n`],
      ['encoded traversal as a method', `POST /api/..%2f..%2fapp.info HTTP/1.1\r\n${withToken}Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`],
      ['encoded traversal in a download', `GET /download/..%2f..%2fetc%2fpasswd HTTP/1.1\r\n${withToken}\r\n`],
      ['static traversal', `GET /..%2f..%2fetc%2fpasswd HTTP/1.1\r\n${withToken}\r\n`],
      ['very long URL (over the header limit)', `GET /${'a'.repeat(20_000)} HTTP/1.1\r\n${withToken}\r\n`],
      ['long URL (under the header limit)', `GET /download/${'a'.repeat(12_000)} HTTP/1.1\r\n${withToken}\r\n`],
      ['scheme-relative target', `GET //evil HTTP/1.1\r\n${withToken}\r\n`],
      ['scheme-relative API target', `GET //evil/api/app.info HTTP/1.1\r\n${withToken}\r\n`],
      ['empty authority', `GET // HTTP/1.1\r\n${withToken}\r\n`],
      ['absolute-form target', `GET http://evil/ HTTP/1.1\r\n${withToken}\r\n`],
      [
        'absolute-form API target naming this server',
        `POST http://${host()}/api/app.info HTTP/1.1\r\n${withToken}Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
      ],
      ['asterisk-form target', `OPTIONS * HTTP/1.1\r\n${withToken}\r\n`],
      ['foreign Host', `GET / HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n`],
      ['Host with this port on another name', `GET / HTTP/1.1\r\nHost: evil.example:${port}\r\nConnection: close\r\n\r\n`],
      ['no Host (HTTP/1.0)', `GET / HTTP/1.0\r\n\r\n`],
      ['two Host headers', `GET / HTTP/1.1\r\nHost: ${host()}\r\nHost: evil.example\r\nConnection: close\r\n\r\n`],
      ['control bytes in the request line', `GET /\x00\x01 HTTP/1.1\r\n${withToken}\r\n`],
      ['garbage instead of HTTP', `\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n`],
      ['bad header name', `GET / HTTP/1.1\r\nHost: ${host()}\r\nBad Header: x\r\n\r\n`],
      ['bad Content-Length', `POST /api/app.info HTTP/1.1\r\n${withToken}Content-Type: application/json\r\nContent-Length: -5\r\n\r\n`],
      ['JSON that is not an object', `POST /api/sessions.list HTTP/1.1\r\n${withToken}Content-Type: application/json\r\nContent-Length: 4\r\n\r\nnull`],
    ];
    for (const [name, bytes] of attacks) {
      const status = statusOf(await rawExchange(port, bytes));
      expect({ name, clientError: status >= 400 && status < 500 }).toEqual({ name, clientError: true });
    }
    expect(stderr).toEqual([]);
    expect((await api('app.info', {})).status).toBe(200);
  });

  it('closes a client that sends its headers one byte a second', async () => {
    mode = await startMode();
    const { closedAfterMs, answer } = await trickle(mode.server.port, `GET / HTTP/1.1\r\nHost: ${host()}\r\nX-Slow: `);
    expect(closedAfterMs).toBeLessThan(CLOSE_BOUND_MS);
    expect(statusOf(answer)).toBe(408);
    expect((await api('app.info', {})).status).toBe(200);
    expect(stderr).toEqual([]);
  });

  it('closes a client that sends a declared body one byte a second', async () => {
    mode = await startMode();
    const headers = `POST /api/settings.set HTTP/1.1\r\nHost: ${host()}\r\nx-loom-token: ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"theme":"dark","model":"`;
    const { closedAfterMs } = await trickle(mode.server.port, headers);
    expect(closedAfterMs).toBeLessThan(CLOSE_BOUND_MS);
    // The half-sent request changed nothing, printed nothing, and the server still answers.
    expect(await call('settings.get', {})).toMatchObject({ theme: 'system', model: 'gemma4' });
    expect(stderr).toEqual([]);
  });

  it('bounds only the receiving: a turn that outlasts the request limit still gets its answer', async () => {
    mode = await startMode();
    model.enqueue({ text: 'A slow answer.', delayMs: (TEST_LIMITS.requestMs ?? 0) + 1500 }, { text: 'Slow' });
    const session = await call<SessionMeta>('chat.create', {});
    expect(await call('chat.send', { sessionId: session.id, text: 'take your time' })).toEqual({ error: null });
  });

  it('closes a trickling client within 30 s with the production limits', () => {
    expect(RECEIVE_LIMITS.headersMs).toBeLessThanOrEqual(RECEIVE_LIMITS.requestMs);
    expect(RECEIVE_LIMITS.requestMs + RECEIVE_LIMITS.checkEveryMs).toBeLessThanOrEqual(30_000);
  });

  it('cuts off an event stream nobody reads instead of buffering without bound', async () => {
    mode = await startMode();
    const listeners = new Set<(event: BridgeEvent) => void>();
    const server = await startBridgeServer({
      handlers: mode.backend.handlers,
      subscribe: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      staticDir: null,
      token: TOKEN,
      limits: { maxUnreadEventBytes: 256 * 1024 },
    });
    cleanups.push(() => server.close());
    const socket = net.connect(server.port, '127.0.0.1', () =>
      socket.write(`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nx-loom-token: ${TOKEN}\r\n\r\n`),
    );
    socket.on('error', () => {});
    cleanups.push(() => void socket.destroy());
    await new Promise<void>((resolve) => socket.once('data', () => resolve()));
    socket.pause(); // a window that never reads again
    expect(listeners.size).toBe(1);
    const event = { type: 'notice', sessionId: 's1', level: 'info', text: 'x'.repeat(64 * 1024) } as unknown as BridgeEvent;
    // 64 MiB of events, far more than the kernel's socket buffers can hold.
    for (let i = 0; i < 1024 && listeners.size > 0; i++) {
      for (const listener of [...listeners]) listener(event);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await vi.waitFor(() => expect(listeners.size).toBe(0), { timeout: CLOSE_BOUND_MS });
  });

  it('disk full: one clear line, the server keeps running, and what was saved stays readable', async (ctx) => {
    const dataDir = smallDisk('data', ctx);
    mode = await startMode(dataDir);

    model.enqueue({ text: 'Saved before the disk filled.' }, { text: 'Before' });
    const session = await call<SessionMeta>('chat.create', {});
    await call('chat.send', { sessionId: session.id, text: 'remember this' });
    await call('settings.set', { theme: 'dark' });
    const exported = JSON.parse((await call<{ text: string }>('sessions.export', { id: session.id, format: 'json' })).text);
    const settingsBefore = fs.readFileSync(path.join(dataDir, 'settings.json'), 'utf8');
    const filler = fillDisk(dataDir);
    cleanups.push(() => fs.rmSync(filler, { force: true }));

    const settingsSave = await api('settings.set', { theme: 'light' });
    expect(settingsSave.status).toBe(507);
    expect(JSON.parse(settingsSave.body)).toEqual({ ok: false, error: { code: 'disk_full', message: DISK_FULL_MESSAGE } });
    expect(fs.readFileSync(path.join(dataDir, 'settings.json'), 'utf8')).toBe(settingsBefore);
    expect(fs.readdirSync(dataDir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    // Nor does a failed save drop this run's --base-url in favour of the unsaved one.
    expect((await api('settings.set', { baseUrl: 'http://127.0.0.1:9/v1' })).status).toBe(507);
    expect(await call('settings.get', {})).toMatchObject({ baseUrl: model.baseUrl, theme: 'dark' });

    // Taking the session's lease for the turn is a write too: it, or the long message, meets the
    // full disk first (as the WAL has room left or not), the turn refused or ended with the same line.
    const turn = JSON.parse((await api('chat.send', { sessionId: session.id, text: `a long message ${'z'.repeat(150_000)}` })).body);
    expect(turn.ok ? turn.value.error : turn.error).toEqual(turn.ok ? DISK_FULL_MESSAGE : { code: 'disk_full', message: DISK_FULL_MESSAGE });

    // A session too big for what is left of the WAL: SQLite says SQLITE_FULL.
    const big = 'y'.repeat(400 * 1024);
    exported.session.transcript[0].content = big;
    exported.session.messages[0].content = big;
    const imported = await api('sessions.import', { text: JSON.stringify(exported) });
    expect(JSON.parse(imported.body)).toEqual({ ok: false, error: { code: 'disk_full', message: DISK_FULL_MESSAGE } });

    // Still running, nothing lost: the one session and its transcript read back as saved.
    expect((await api('app.info', {})).status).toBe(200);
    expect((await call<SessionPage>('sessions.list', {})).sessions.map((s) => s.id)).toEqual([session.id]);
    const page = await call<{ messages: { role: string; content: string | null }[] }>('sessions.transcript', { id: session.id, offset: 0, limit: 50 });
    expect(page.messages.map((m) => m.content)).toEqual(expect.arrayContaining(['Saved before the disk filled.']));
    expect(JSON.stringify(page)).not.toContain('a long message');
    expect(await call('settings.get', {})).toMatchObject({ theme: 'dark' });
    expect(stderr.join('')).not.toMatch(/\n\s+at /); // no stack trace

    // Space freed: the same change now goes through.
    fs.rmSync(filler);
    expect(await call('settings.set', { theme: 'light' })).toMatchObject({ theme: 'light' });
  });

  it('disk full in the command: the same one line, no "unexpected error"', async (ctx) => {
    const dataDir = smallDisk('cli-data', ctx);
    await buildLoom();
    mode = await startMode(dataDir);
    model.enqueue({ text: 'Saved before the disk filled.' }, { text: 'Before' });
    const session = await call<SessionMeta>('chat.create', {});
    await call('chat.send', { sessionId: session.id, text: 'remember this' });
    const exported = JSON.parse((await call<{ text: string }>('sessions.export', { id: session.id, format: 'json' })).text);

    const big = 'y'.repeat(400 * 1024);
    exported.session.transcript[0].content = big;
    exported.session.messages[0].content = big;
    const importFile = path.join(root, 'big-session.json');
    fs.writeFileSync(importFile, JSON.stringify(exported));
    const filler = fillDisk(dataDir);
    cleanups.push(() => fs.rmSync(filler, { force: true }));

    // The browser mode stays open beside it, as the app would be.
    const run = await runLoom(['--data-dir', dataDir, '--import', importFile]);
    expect(run.stderr).toBe(`loom: ${DISK_FULL_MESSAGE}\n`);
    expect(run.code).toBe(1);
    const list = await runLoom(['--data-dir', dataDir, '--list-sessions']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(session.id.slice(0, 8));
  }, 120_000);
});
