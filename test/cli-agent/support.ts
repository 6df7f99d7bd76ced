/**
 * Drives the real `loom` command (node bin/loom.js) as a user would: piped stdin, no TTY,
 * against the in-process scripted server (so spawning is asynchronous), with its data in
 * a temp folder. The store is then opened to check what was saved.
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeAll, beforeEach } from 'vitest';
import { SessionStore } from '../../src/core/store/session-store';
import { startScriptedServer, type ScriptedServer } from '../support/scripted-server';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'loom.js');

const BUNDLE = path.join(ROOT, 'dist', 'cli.js');
const BUILD_LOCK = path.join(ROOT, 'dist', '.cli-agent-build.lock');
const STALE_LOCK_MS = 60_000;

/**
 * Bundles the command (`node scripts/build-node.mjs`) unless dist/cli.js is newer than every
 * source file. Test files run in parallel: a lock folder makes them build one at a time, so
 * none spawns `loom` while another rewrites the bundle.
 */
export async function buildLoom(): Promise<void> {
  fs.mkdirSync(path.dirname(BUILD_LOCK), { recursive: true });
  await takeLock();
  try {
    if (!bundleIsFresh()) await promisify(execFile)(process.execPath, ['scripts/build-node.mjs'], { cwd: ROOT });
  } finally {
    fs.rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}

async function takeLock(): Promise<void> {
  for (;;) {
    try {
      fs.mkdirSync(BUILD_LOCK);
      return;
    } catch {
      // A lock left by a killed run is taken over after a minute.
      const age = Date.now() - (fs.statSync(BUILD_LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > STALE_LOCK_MS) fs.rmSync(BUILD_LOCK, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

function bundleIsFresh(): boolean {
  const built = fs.statSync(BUNDLE, { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined) return false;
  const sources = fs.readdirSync(path.join(ROOT, 'src'), { recursive: true, withFileTypes: true });
  return sources.every((entry) => !entry.isFile() || fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs < built);
}

export interface Workspace {
  root: string;
  projectDir: string;
  dataDir: string;
  cleanup(): void;
}

export function makeWorkspace(): Workspace {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-cli-agent-')));
  const projectDir = path.join(root, 'project');
  const dataDir = path.join(root, 'data');
  fs.mkdirSync(projectDir);
  return { root, projectDir, dataDir, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

/** What each test of a file gets: its own scripted server and workspace. */
export interface LoomFixture {
  readonly server: ScriptedServer;
  readonly ws: Workspace;
}

/**
 * Registers the hooks every cli-agent test file shares: `loom` is built once, and each
 * test gets a fresh scripted server and workspace, closed and removed after it.
 */
export function useLoomFixture(): LoomFixture {
  let server: ScriptedServer | undefined;
  let ws: Workspace | undefined;
  beforeAll(async () => {
    await buildLoom();
  });
  beforeEach(async () => {
    server = await startScriptedServer();
    ws = makeWorkspace();
  });
  afterEach(async () => {
    await server?.close();
    ws?.cleanup();
  });
  return {
    get server() {
      if (!server) throw new Error('the scripted server exists only inside a test');
      return server;
    },
    get ws() {
      if (!ws) throw new Error('the workspace exists only inside a test');
      return ws;
    },
  };
}

export interface LoomProcess {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout+stderr match `pattern` (rejects if the process ends first). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  write(text: string): void;
  end(): void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `loom` with the workspace's data folder and the given server; no secrets in its env. */
export function startLoom(ws: Workspace, baseUrl: string, args: string[], extraEnv: Record<string, string> = {}): LoomProcess {
  const env = { PATH: process.env.PATH ?? '', HOME: ws.root, LANG: 'C.UTF-8', ...extraEnv };
  const child = spawn(process.execPath, [BIN, '--data-dir', ws.dataDir, '--base-url', baseUrl, ...args], {
    cwd: ws.projectDir,
    env,
    stdio: 'pipe',
  });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (d: string) => ((out += d), listeners.forEach((l) => l())));
  child.stderr.setEncoding('utf8').on('data', (d: string) => ((err += d), listeners.forEach((l) => l())));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    write: (text) => void child.stdin.write(text),
    end: () => child.stdin.end(),
    waitFor(pattern, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = (out + err).match(pattern);
          if (!match) return;
          done();
          resolve(match);
        };
        const timer = setTimeout(() => (done(), reject(new Error(`timed out waiting for ${pattern}\n${out}\n${err}`))), timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        void exited.then(() => setTimeout(() => (done(), reject(new Error(`loom exited before ${pattern}\n${out}\n${err}`))), 50));
        check();
      });
    },
  };
}

export interface LoomRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `loom` to the end with `input` piped to stdin. */
export async function runLoom(ws: Workspace, baseUrl: string, args: string[], input = '', env: Record<string, string> = {}): Promise<LoomRun> {
  const loom = startLoom(ws, baseUrl, args, env);
  loom.write(input);
  loom.end();
  const { code } = await loom.exited;
  return { code, stdout: loom.stdout(), stderr: loom.stderr() };
}

/** The session id `loom` announced at start. */
export function announcedId(output: string): string {
  const match = output.match(/Session ([0-9a-f-]{36})/);
  if (!match) throw new Error(`no session id in:\n${output}`);
  return match[1];
}

/** Opens the workspace's store for a look, closing it again. */
export function inStore<T>(ws: Workspace, look: (store: SessionStore) => T): T {
  const store = SessionStore.open(ws.dataDir);
  try {
    return look(store);
  } finally {
    store.close();
  }
}
