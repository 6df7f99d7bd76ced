/**
 * Drives the real `loom` command (node bin/loom.js) as a user would: piped stdin, no TTY,
 * against the in-process scripted server (so spawning is asynchronous), with its data in
 * a temp folder. The store is then opened to check what was saved.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach } from 'vitest';
import { SessionStore } from '../../src/core/store/session-store';
import { BIN, buildLoom, type LoomRun } from '../cli/run-loom';
import { nth } from '../support/elements';
import { startScriptedServer, type ScriptedServer } from '../support/scripted-server';

export interface Workspace {
  root: string;
  projectDir: string;
  dataDir: string;
  cleanup(): void;
}

function makeWorkspace(): Workspace {
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
  return nth(match, 1);
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
