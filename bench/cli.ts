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
import { formatMs, percentile, printTable, progress, type Timing } from './harness';
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

interface Command {
  label: string;
  args: string[];
  target?: number;
  /** A reference, not Loom: what the least a command could do costs here (no target). */
  floor?: boolean;
}

const SQLITE = fileURLToPath(new URL('../node_modules/better-sqlite3', import.meta.url));

/** Node, better-sqlite3 and one query printed: the least any `--list-sessions` must do. */
function sqliteFloor(home: string): string[] {
  const code = `const D = require(${JSON.stringify(SQLITE)}); const db = new D(${JSON.stringify(path.join(home, 'loom.db'))}); console.log(db.prepare('SELECT id, title FROM sessions ORDER BY updated_at DESC LIMIT 50').all().map((r) => r.id + ' ' + r.title).join('\\n'));`;
  return ['-e', code];
}

function runCliBench(): void {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-cli-'));
  try {
    const [id, other] = seed(home);
    const data = ['--data-dir', home];
    const commands: Command[] = [
      { label: 'node -e 0', args: ['-e', '0'] },
      { label: 'floor: node, better-sqlite3, one query', args: sqliteFloor(home), floor: true },
      { label: 'loom --version', args: [BIN, '--version'] },
      { label: 'loom --list-sessions', args: [BIN, '--list-sessions', ...data], target: LIST_TARGET_RATIO },
      { label: 'loom --search deadlock', args: [BIN, '--search', 'deadlock', ...data] },
      { label: 'loom --info ID', args: [BIN, '--info', id, ...data] },
      { label: 'loom --export ID', args: [BIN, '--export', id, ...data] },
      { label: 'loom --rename ID', args: [BIN, '--rename', id, 'Renamed', ...data] },
      // Another session: archiving one already archived archives it again (a write all the same).
      { label: 'loom --archive ID', args: [BIN, '--archive', other, ...data] },
      { label: 'loom --doctor', args: [BIN, '--doctor', ...data] },
    ];
    report(commands, interleaved(commands));
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** The ids of the first two sessions. */
function seed(home: string): string[] {
  const corpus = new Corpus(11);
  const store = SessionStore.open(home);
  try {
    const ids = store.db.transaction(() =>
      Array.from({ length: SESSIONS }, () => store.create({ title: corpus.sentence(), messages: corpus.session(MESSAGES_PER_SESSION) }).id),
    )();
    store.updateSearchIndex();
    return ids.slice(0, 2);
  } finally {
    store.close();
  }
}

/** ROUNDS rounds, each running every command once in turn (after one unmeasured round). */
function interleaved(commands: Command[]): Timing[] {
  const times = commands.map(() => [] as number[]);
  for (let round = -1; round < ROUNDS; round++) {
    commands.forEach((command, i) => {
      const start = process.hrtime.bigint();
      const run = spawnSync(process.execPath, command.args, { stdio: ['ignore', 'ignore', 'pipe'] });
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (run.status !== 0) throw new Error(`${command.label} failed: ${run.stderr.toString()}`);
      if (round >= 0) times[i].push(ms);
    });
    if (round % 10 === 9) progress(`  ${round + 1} of ${ROUNDS} rounds`);
  }
  return times.map((list) => {
    const sorted = list.sort((a, b) => a - b);
    return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), runs: sorted.length };
  });
}

function report(commands: Command[], timings: Timing[]): void {
  const bare = timings[0].p50;
  const rows = commands.map((command, i) => {
    const { p50, p99 } = timings[i];
    if (i === 0) return [command.label, formatMs(p50), formatMs(p99), '1.0×', '-', '-'];
    const ratio = p50 / bare;
    if (command.floor) return [command.label, formatMs(p50), formatMs(p99), `${ratio.toFixed(2)}×`, '-', '-'];
    const target = command.target ?? TARGET_RATIO;
    return [command.label, formatMs(p50), formatMs(p99), `${ratio.toFixed(2)}×`, `≤ ${target}×`, ratio <= target ? 'yes' : 'NO'];
  });
  printTable(
    `CLI start (${ROUNDS} interleaved rounds; a data folder of ${SESSIONS} sessions × ${MESSAGES_PER_SESSION} messages)`,
    ['command', 'p50', 'p99', 'p50 / node -e 0', 'target', 'met'],
    rows,
  );
}
