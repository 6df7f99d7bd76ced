/**
 * Runs the built `loom` command (bin/loom.js -> dist/cli.js) as a user would, in a child
 * process with no TTY and stdin closed unless input is given.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { nth } from '../support/elements';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = path.join(ROOT, 'bin/loom.js');

export interface LoomRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const BUNDLE = path.join(ROOT, 'dist', 'cli.js');
const BUILD_SCRIPT = path.join(ROOT, 'scripts', 'build-node.mjs');
const BUILD_LOCK = path.join(ROOT, 'dist', '.test-build.lock');
const STALE_LOCK_MS = 60_000;

/**
 * Bundles the `loom` command (src/cli/bin.ts) into dist/cli.js, as `npm install` does, unless the bundle is
 * newer than the build script and every source file. Test files run in parallel: a lock
 * folder makes them build one at a time, and the ones after the first find it fresh.
 */
export async function buildLoom(): Promise<void> {
  fs.mkdirSync(path.dirname(BUILD_LOCK), { recursive: true });
  await takeLock();
  try {
    if (!bundleIsFresh()) await promisify(execFile)(process.execPath, [BUILD_SCRIPT], { cwd: ROOT });
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
  const files = [BUILD_SCRIPT, ...sources.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name))];
  return files.every((file) => fs.statSync(file).mtimeMs < built);
}

/**
 * `loom ...args` with a clean environment: no LOOM_* or API-key variables from the caller,
 * so only what a test passes counts. `input` is piped to stdin; otherwise stdin is empty, or
 * with `holdStdin` a pipe that is never written to nor closed (a command must not wait on it).
 */
export function runLoom(args: string[], opts: { env?: Record<string, string>; input?: string; cwd?: string; holdStdin?: boolean } = {}): Promise<LoomRun> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), ...opts.env };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd ?? ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (opts.holdStdin) child.on('close', () => child.stdin.destroy());
    else child.stdin.end(opts.input ?? '');
  });
}

export function makeTempDir(label = 'loom-cli-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), label));
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** The line a user sees: exactly one, prefixed `loom:`, and no trace of a stack. */
export function expectOneErrorLine(run: LoomRun): string {
  const lines = run.stderr.split('\n').filter(Boolean);
  if (lines.length !== 1 || !nth(lines, 0).startsWith('loom: ') || /\bat .+:\d+:\d+/.test(run.stderr)) {
    throw new Error(`expected one 'loom: ...' line on stderr, got:\n${run.stderr}`);
  }
  return nth(lines, 0);
}
