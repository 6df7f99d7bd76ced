import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoomError } from '../../src/core/errors';
import { SessionStore } from '../../src/core/store/session-store';
import { nth } from '../support/elements';
import { onCleanup, openStore, user } from './helpers';

// Child processes cannot import .ts: the store is bundled once into a temp folder whose
// node_modules links to the repo's, so the bundle's `better-sqlite3` import resolves.
const root = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = fileURLToPath(new URL('./fixtures', import.meta.url));
let bundleDir: string;
let storeModule: string;

beforeAll(async () => {
  bundleDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-store-bundle-'));
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(bundleDir, 'node_modules'));
  storeModule = path.join(bundleDir, 'store.mjs');
  await build({
    entryPoints: [path.join(root, 'src/core/store/session-store.ts')],
    outfile: storeModule,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
});

afterAll(() => fs.rmSync(bundleDir, { recursive: true, force: true }));

interface Child {
  process: ChildProcess;
  lines: string[];
  /** Resolves once a printed line satisfies `test`; rejects if the child exits first. */
  waitFor(test: (lines: string[]) => boolean): Promise<void>;
  exited: Promise<void>;
}

function spawnFixture(fixture: string, store: SessionStore, sessionId: string): Child {
  const child = spawn(process.execPath, [path.join(fixtures, fixture), storeModule, store.dataDir, sessionId], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  let pending = '';
  const waiters: { test: (l: string[]) => boolean; resolve: () => void }[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (pending + chunk.toString()).split('\n');
    pending = parts.pop()!;
    lines.push(...parts);
    for (const w of waiters.filter((w) => w.test(lines))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // Resolves after exit and the end of output, once the kernel has reaped the process.
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  onCleanup(() => child.kill('SIGKILL'));
  return {
    process: child,
    lines,
    exited,
    waitFor: (test) =>
      new Promise<void>((resolve, reject) => {
        if (test(lines)) return resolve();
        waiters.push({ test, resolve });
        void exited.then(() => reject(new Error(`child exited early: ${stderr}`)));
      }),
  };
}

async function killHard(child: Child): Promise<void> {
  child.process.kill('SIGKILL');
  await child.exited;
}

/** The state letter of a Linux process ('S', 'R', 'Z', …); the name before it may hold ')'. */
function procState(pid: number): string {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  return nth(stat.slice(stat.lastIndexOf(')') + 2).split(' '), 0);
}

/** Polls until `test` holds, failing after `timeoutMs` (no fixed sleep: a busy machine only waits longer). */
async function until(test: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('two processes', () => {
  it('refuses the lease to a second process and reclaims it after the holder is killed', async () => {
    const store = openStore();
    const { id } = store.create({ messages: [user('hello')] });
    const holder = spawnFixture('lease-holder.mjs', store, id);
    await holder.waitFor((lines) => lines.includes('held'));
    const pid = holder.process.pid!;

    expect(() => store.acquireLease(id)).toThrow(LoomError);
    expect(() => store.acquireLease(id)).toThrow(`Session ${id} is in use by pid ${pid}.`);
    expect(() => store.delete(id)).toThrow(`Session ${id} is in use by pid ${pid}.`);
    // Reading is still fine while another process writes.
    expect(store.getTranscript(id)).toEqual([user('hello')]);

    await killHard(holder);
    const lease = store.acquireLease(id);
    expect(lease.sessionId).toBe(id);
    expect(store.db.prepare('SELECT pid FROM leases').get()).toEqual({ pid: process.pid });
    lease.release();
    expect(store.db.prepare('SELECT count(*) AS n FROM leases').get()).toEqual({ n: 0 });
  });

  // A parent that never waits: sh starts the holder in the background, then becomes `sleep`,
  // so the killed holder stays a zombie, which kill(pid, 0) still finds.
  it.runIf(process.platform === 'linux')('takes over a lease whose holder is a zombie', async () => {
    const store = openStore();
    const { id } = store.create({ messages: [user('hello')] });
    const holderArgs = [path.join(fixtures, 'lease-holder.mjs'), storeModule, store.dataDir, id];
    const parent = spawn('sh', ['-c', '"$0" "$@" & echo "pid $!"; exec sleep 60', process.execPath, ...holderArgs], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    onCleanup(() => parent.kill('SIGKILL')); // init then reaps the zombie
    let out = '';
    parent.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await until(() => /pid \d+\n[^]*held\n/.test(out), 'the holder to take the lease');
    const pid = Number(out.match(/pid (\d+)/)![1]);
    expect(() => store.acquireLease(id)).toThrow(`Session ${id} is in use by pid ${pid}.`);

    process.kill(pid, 'SIGKILL');
    await until(() => procState(pid) === 'Z', `pid ${pid} to become a zombie`);
    expect(() => process.kill(pid, 0)).not.toThrow(); // what the lease check used to rely on
    const lease = store.acquireLease(id);
    expect(lease.sessionId).toBe(id);
    expect(store.db.prepare('SELECT pid FROM leases').get()).toEqual({ pid: process.pid });
  });

  it('keeps every append a killed writer reported as committed', async () => {
    const store = openStore();
    const { id } = store.create();
    const writer = spawnFixture('appender.mjs', store, id);
    await writer.waitFor((lines) => lines.length >= 300);
    await killHard(writer);
    const reported = writer.lines.filter((l) => /^\d+$/.test(l)).map(Number);
    expect(reported.length).toBeGreaterThanOrEqual(300);
    expect(reported).toEqual(reported.map((_, i) => i));

    const reopened = openStore(store.dataDir);
    expect(reopened.db.pragma('integrity_check', { simple: true })).toBe('ok');
    const transcript = reopened.getTranscript(id);
    expect(transcript.length).toBeGreaterThanOrEqual(reported.length);
    for (const n of reported) expect(nth(transcript, n).content).toMatch(new RegExp(`^message ${n} `));
    expect(reopened.getContext(id)).toEqual(transcript);
    expect(reopened.getMeta(id).message_count).toBe(transcript.length);
    // The dead writer's lease does not block the next writer.
    expect(reopened.acquireLease(id).sessionId).toBe(id);
    expect(reopened.search('payload').map((h) => h.id)).toEqual([id]);
  });

  it('keeps a message whose writer was killed before indexing it, and search finds it after reopening', async () => {
    const store = openStore();
    const { id } = store.create({ messages: [user('Birds of Central America')] });
    store.close();
    const writer = spawnFixture('append-and-die.mjs', store, id);
    await writer.exited;
    expect(writer.process.signalCode).toBe('SIGKILL');
    expect(writer.lines).toEqual(['appended']);

    const reopened = openStore(store.dataDir);
    // Not yet in the full-text index: only queued, by the append's own transaction.
    const queued = reopened.db.prepare('SELECT count(*) AS n FROM search_backlog').get();
    expect(queued).toEqual({ n: 1 });
    expect(reopened.getTranscript(id).at(-1)).toEqual(user('The resplendent quetzal nests in the cloud forest.'));
    const hits = reopened.search('quetzal');
    expect(hits.map((h) => h.id)).toEqual([id]);
    expect(nth(hits, 0).snippet).toContain('[quetzal]');
  });
});
