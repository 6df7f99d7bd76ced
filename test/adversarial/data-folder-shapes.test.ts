/**
 * A data folder whose loom.db, -wal or -shm is not a regular file (a folder, a FIFO, a
 * socket, a symbolic link), and a data folder Loom can only read, through the built `loom`:
 * `--doctor` and a command that opens the store (`--list-sessions`) each say in one line
 * what is wrong, exit non-zero, and create or change nothing; in a read-only folder the
 * doctor still checks the database (docs/SECURITY.md#11-a-damaged-database-is-reported-never-emptied).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it, type TestContext } from 'vitest';
import { databasePath } from '../../src/core/store/db';
import { SessionStore } from '../../src/core/store/session-store';
import { buildLoom, expectOneErrorLine, makeTempDir, removeDir, runLoom } from '../cli/run-loom';
import { fillStore, leafPages, sha256, smashPage } from '../store/damage-helpers';
import { nth } from '../support/elements';

let root: string;
let dataDir: string;
let file: string;
const cleanups: (() => void)[] = [];
const loom = (...args: string[]) => runLoom([...args, '--data-dir', dataDir]);

beforeAll(buildLoom, 180_000);
beforeEach(() => {
  root = makeTempDir('loom-shapes-');
  dataDir = path.join(root, 'data');
  file = databasePath(dataDir);
});
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  removeDir(root);
});

/** Every entry under `dir` with its type and, for files, its bytes' hash: what "nothing changed" compares. */
function snapshot(dir: string): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const name of fs.readdirSync(dir).sort()) {
    const at = path.join(dir, name);
    const stat = fs.lstatSync(at);
    entries[name] = stat.isFile()
      ? `file ${sha256(at)}`
      : stat.isSymbolicLink()
        ? `link ${fs.readlinkSync(at)}`
        : stat.isDirectory()
          ? `dir ${fs.readdirSync(at).join(',')}`
          : `mode ${stat.mode}`;
  }
  return entries;
}

type Shape = 'a folder' | 'a named pipe (FIFO)' | 'a socket' | 'a symbolic link' | 'a device';

/** Puts `shape` at `at`; a socket stays listening until the test ends; a device needs root (else the test skips). */
async function place(shape: Shape, at: string, ctx: TestContext): Promise<void> {
  if (shape === 'a device') {
    try {
      execFileSync('mknod', [at, 'c', '1', '3'], { stdio: 'pipe' }); // what /dev/null is
    } catch (err) {
      ctx.skip(`cannot make a device node (needs root): ${String(err).split('\n')[0]}`);
    }
  }
  if (shape === 'a folder') fs.mkdirSync(at);
  if (shape === 'a named pipe (FIFO)') execFileSync('mkfifo', [at]);
  if (shape === 'a symbolic link') {
    // A link to a sound Loom database elsewhere: even that is not opened through the link.
    const elsewhere = path.join(root, 'elsewhere');
    fillStore(elsewhere, 1);
    fs.symlinkSync(databasePath(elsewhere), at);
  }
  if (shape === 'a socket') {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(at, resolve));
    cleanups.push(() => void server.close());
  }
}

const SHAPES: Shape[] = ['a folder', 'a named pipe (FIFO)', 'a socket', 'a symbolic link', 'a device'];
const WHERE = [
  ['loom.db', ''],
  ['loom.db-wal', '-wal'],
  ['loom.db-shm', '-shm'],
] as const;

describe.each(WHERE)('%s that is not a regular file', (_name, suffix) => {
  it.for(SHAPES)('as %s: --doctor and --list-sessions each give one line, exit 1, and change nothing', async (shape, ctx) => {
    if (suffix) fillStore(dataDir, 2);
    else fs.mkdirSync(dataDir, { mode: 0o700 });
    const at = `${file}${suffix}`;
    await place(shape, at, ctx);
    const before = snapshot(dataDir);
    const elsewhere = fs.existsSync(path.join(root, 'elsewhere')) ? snapshot(path.join(root, 'elsewhere')) : null;
    const line = `${at} is ${shape}, not a regular file: Loom keeps its sessions only in regular files, and left it as it is. Move it away and try again.`;

    const doctor = await loom('--doctor');
    expect(doctor).toEqual({ code: 1, stdout: `${line}\n`, stderr: '' });
    const list = await loom('--list-sessions');
    expect(list.code).toBe(1);
    expect(expectOneErrorLine(list)).toBe(`loom: ${line}`);
    expect(list.stdout).toBe('');

    expect(snapshot(dataDir)).toEqual(before);
    if (elsewhere) expect(snapshot(path.join(root, 'elsewhere'))).toEqual(elsewhere);
  });
});

describe('a data folder that is not a folder', () => {
  it('--doctor gives one line and exit 1', async () => {
    fs.writeFileSync(dataDir, 'not a folder');
    const run = await loom('--doctor');
    expect(run.code).toBe(1);
    expect(run.stdout.trimEnd().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^${file} could not be checked \\(ENOTDIR: .*\\); it was not changed\\.$`)),
    ]);
    expect(fs.readFileSync(dataDir, 'utf8')).toBe('not a folder');
  });
});

/** Mounts a tmpfs as the data folder, lets `fill` write it, then remounts it read-only; skips without root. */
function readOnlyDataFolder(ctx: TestContext, fill: () => void): void {
  fs.mkdirSync(dataDir);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m,mode=0700', 'tmpfs', dataDir], { stdio: 'pipe' });
  } catch (err) {
    ctx.skip(`cannot mount a tmpfs to make read-only (needs root): ${String(err).split('\n')[0]}`);
  }
  cleanups.push(() => void execFileSync('umount', ['-l', dataDir]));
  fill();
  execFileSync('mount', ['-o', 'remount,ro', dataDir], { stdio: 'pipe' });
}

describe('a data folder Loom can only read (a read-only mount; skipped where mounting needs root)', () => {
  it('--doctor checks a sound database there: ok, exit 0, nothing changed', async (ctx) => {
    readOnlyDataFolder(ctx, () => fillStore(dataDir, 3));
    const before = snapshot(dataDir);
    expect(await loom('--doctor')).toEqual({ code: 0, stdout: `${file}: ok (SQLite's integrity check found no damage).\n`, stderr: '' });
    expect(snapshot(dataDir)).toEqual(before);
  });

  it('--doctor reads a session that lives only in the -wal there', async (ctx) => {
    readOnlyDataFolder(ctx, () => {
      const scratch = path.join(root, 'scratch');
      const live = SessionStore.open(scratch);
      live.create({ title: 'not yet checkpointed' });
      fs.copyFileSync(databasePath(scratch), file);
      fs.copyFileSync(`${databasePath(scratch)}-wal`, `${file}-wal`);
      live.close();
    });
    const before = snapshot(dataDir);
    expect(Object.keys(before)).toEqual(['loom.db', 'loom.db-wal']);
    expect(await loom('--doctor')).toEqual({ code: 0, stdout: `${file}: ok (SQLite's integrity check found no damage).\n`, stderr: '' });
    expect(snapshot(dataDir)).toEqual(before);
  });

  it('--doctor finds damage there and says why it salvages nothing, exit 1, nothing changed', async (ctx) => {
    readOnlyDataFolder(ctx, () => {
      fillStore(dataDir, 30);
      const pages = leafPages(file, 'messages');
      smashPage(file, nth(pages, Math.floor(pages.length / 2)));
    });
    const before = snapshot(dataDir);
    const run = await loom('--doctor');
    expect(run.code).toBe(1);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`${file}: damaged.`);
    expect(lines).toContain('  messages: database disk image is malformed');
    expect(lines.at(-1)).toBe(
      `Not salvaged: ${dataDir} is read-only, so no salvaged copy can be written beside it; copy the folder somewhere writable and run the doctor there. It was not changed.`,
    );
    expect(snapshot(dataDir)).toEqual(before);
  });

  it('opening the store there is one line, exit 1, nothing changed', async (ctx) => {
    readOnlyDataFolder(ctx, () => fillStore(dataDir, 1));
    const before = snapshot(dataDir);
    const run = await loom('--list-sessions');
    expect(run.code).toBe(1);
    expect(expectOneErrorLine(run)).toBe(
      `loom: The data directory ${dataDir} is read-only: Loom writes its sessions there. Nothing was changed; use a folder Loom can write (--data-dir).`,
    );
    expect(snapshot(dataDir)).toEqual(before);
  });
});
