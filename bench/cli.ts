/**
 * `loom` starts at once (issue 12): each lifecycle command, run as a user runs it (bin/loom.js
 * -> dist/cli.js, built by `npm run bench`), timed beside a bare `node -e 0` on the same
 * machine in the same run. The runs are interleaved, so a busy moment of a shared machine
 * slows both alike; the ratio of the p50s is the figure that counts.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SessionStore } from '../src/core/store/session-store';
import { printBesideNode, timeInterleaved, type BesideNode } from './beside-node';
import { Corpus } from './store-corpus';

const BIN = fileURLToPath(new URL('../bin/loom.js', import.meta.url));
const SESSIONS = 200;
const MESSAGES_PER_SESSION = 20;
const ROUNDS = Number(process.env.BENCH_CLI_ROUNDS ?? 30);
/** p50 ÷ node -e 0 (issue 12), and the tighter one for the command run most (issue 21). */
const TARGET_RATIO = 1.5;
const LIST_TARGET_RATIO = 1.3;

export const cliSection = {
  name: 'CLI start: lifecycle commands beside a bare node -e 0',
  run: runCliBench,
};

const SQLITE = fileURLToPath(new URL('../node_modules/better-sqlite3', import.meta.url));

/** Node, better-sqlite3 and one query printed: the least any `--list-sessions` must do. */
function sqliteFloor(home: string): string[] {
  const code = `const D = require(${JSON.stringify(SQLITE)}); const db = new D(${JSON.stringify(path.join(home, 'loom.db'))}); console.log(db.prepare('SELECT id, title FROM sessions ORDER BY updated_at DESC LIMIT 50').all().map((r) => r.id + ' ' + r.title).join('\\n'));`;
  return ['-e', code];
}

async function runCliBench(): Promise<void> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-cli-'));
  try {
    const [id, other] = seed(home);
    const data = ['--data-dir', home];
    // node itself and the floor are references, timed the same way, with no target.
    const reference = (label: string, args: string[]): BesideNode => ({ label, measure: () => untilExit(label, args) });
    const run = (label: string, args: string[], target = TARGET_RATIO): BesideNode => ({ ...reference(label, args), target });
    const rows: BesideNode[] = [
      reference('node -e 0', ['-e', '0']),
      reference('floor: node, better-sqlite3, one query', sqliteFloor(home)),
      run('loom --version', [BIN, '--version']),
      run('loom --list-sessions', [BIN, '--list-sessions', ...data], LIST_TARGET_RATIO),
      run('loom --search deadlock', [BIN, '--search', 'deadlock', ...data]),
      run('loom --info ID', [BIN, '--info', id, ...data]),
      run('loom --export ID', [BIN, '--export', id, ...data]),
      run('loom --rename ID', [BIN, '--rename', id, 'Renamed', ...data]),
      // Another session: archiving one already archived archives it again (a write all the same).
      run('loom --archive ID', [BIN, '--archive', other, ...data]),
      run('loom --doctor', [BIN, '--doctor', ...data]),
    ];
    printBesideNode(
      `CLI start (${ROUNDS} interleaved rounds; a data folder of ${SESSIONS} sessions × ${MESSAGES_PER_SESSION} messages)`,
      await timeInterleaved(rows, ROUNDS),
    );
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** The ids of the first two sessions. */
function seed(home: string): [string, string] {
  const corpus = new Corpus(11);
  const store = SessionStore.open(home);
  try {
    const ids = store.db.transaction(() =>
      Array.from({ length: SESSIONS }, () => store.create({ title: corpus.sentence(), messages: corpus.session(MESSAGES_PER_SESSION) }).id),
    )();
    store.updateSearchIndex();
    const [first, second] = ids;
    if (first === undefined || second === undefined) throw new Error('the CLI bench needs two sessions');
    return [first, second];
  } finally {
    store.close();
  }
}

function untilExit(label: string, args: string[]): number {
  const start = process.hrtime.bigint();
  const run = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  if (run.status !== 0) throw new Error(`${label} failed: ${run.stderr.toString()}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}
