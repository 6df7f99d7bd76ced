/**
 * `loom --import-from` on files with many branches (issue 18, item 10): a Claude Code file
 * of about 760 KB whose every turn was rewound once, and a pi file of about 2.7 MB whose
 * every turn has a side branch, each imported into a fresh store, and the same at half the
 * size. Work and bookkeeping must grow with the file, not with the sum of its paths: the
 * full file may cost about twice the half one (a quadratic import costs four times), and
 * the database stays within a small multiple of the file. The event loop must never wait a
 * second meanwhile: a window's requests are answered while a file is imported.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { importFiles, runImport } from '../src/core/import/run';
import type { ImportSourceName } from '../src/shared/import-sources';
import { SessionStore } from '../src/core/store/session-store';
import { formatBytes, formatMs, formatRatio, printTable, progress, timeOnceAsync, type BenchSection } from './harness';
import { Corpus } from './store-corpus';

/** Full size over half size: linear work doubles, quadratic work quadruples. */
const MAX_GROWTH = 3;
/** A window's request waits at most this long while a file is imported. */
const MAX_PAUSE_MS = 1000;
/** loom.db (with its WAL) over the file it was imported from. */
const MAX_DB_OVER_FILE = 6;

export const importBranchesSection: BenchSection = {
  name: 'Importing files with many branches: Claude Code 760 KB, pi 2.7 MB',
  run: runBranchesBench,
};

interface Measured {
  fileBytes: number;
  ms: number;
  /** The longest the event loop waited during the import: how late a window's request could be answered. */
  pauseMs: number;
  dbBytes: number;
  sessions: number;
}

async function runBranchesBench(): Promise<void> {
  const rows: string[][] = [];
  for (const { source, name, write, turns } of FILES) {
    const half = await measure(source, name, (file) => write(file, turns / 2));
    const full = await measure(source, name, (file) => write(file, turns));
    const growth = full.ms / half.ms;
    const dbRatio = full.dbBytes / full.fileBytes;
    progress(`  ${source}: ${formatMs(half.ms)} at half size, ${formatMs(full.ms)} in full`);
    rows.push(
      [
        `${source}, ${formatBytes(full.fileBytes)}, ${full.sessions.toLocaleString('en-US')} sessions`,
        formatMs(full.ms),
        `≤ ${MAX_GROWTH}× the half file's ${formatMs(half.ms)}`,
        growth <= MAX_GROWTH ? `yes (${formatRatio(growth)})` : `NO (${formatRatio(growth)})`,
      ],
      [
        `${source}: the longest wait of the event loop meanwhile`,
        formatMs(full.pauseMs),
        `< ${formatMs(MAX_PAUSE_MS)}`,
        full.pauseMs < MAX_PAUSE_MS ? 'yes' : 'NO',
      ],
      [
        `${source}: loom.db after it`,
        formatBytes(full.dbBytes),
        `≤ ${MAX_DB_OVER_FILE}× the file`,
        dbRatio <= MAX_DB_OVER_FILE ? `yes (${formatRatio(dbRatio)})` : `NO (${formatRatio(dbRatio)})`,
      ],
    );
  }
  printTable('Importing files with many branches', ['operation', 'Loom', 'target', 'met'], rows);
}

async function measure(source: ImportSourceName, name: string, write: (file: string) => void): Promise<Measured> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-branches-'));
  try {
    const file = path.join(home, 'sessions', name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    write(file);
    const dataDir = path.join(home, 'data');
    const store = SessionStore.open(dataDir);
    let ms: number;
    let pauseMs: number;
    let sessions: number;
    try {
      const pauses = monitorEventLoopDelay({ resolution: 10 });
      pauses.enable();
      ms = await timeOnceAsync(async () => runImport(store, await importFiles({ source, path: file, home })));
      pauses.disable();
      pauseMs = pauses.max / 1e6;
      sessions = store.list({ limit: -1 }).length;
    } finally {
      store.close();
    }
    // Measured closed: the last connection's close checkpoints the WAL into loom.db.
    return { fileBytes: fs.statSync(file).size, ms, pauseMs, dbBytes: folderBytes(dataDir), sessions };
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

function folderBytes(folder: string): number {
  return fs.readdirSync(folder).reduce((n, name) => n + fs.statSync(path.join(folder, name)).size, 0);
}

/** A turn's prompt and answer on the main line, and a rewind under the turn before: another prompt and its answer. */
interface TurnWriter {
  entry(id: string, parent: string | null, role: 'user' | 'assistant', text: string, second: number): string;
}

/** `turns` turns, each but the first also rewound once: 4 entries a turn, half of them on branches. */
function branchyLines(turns: number, writer: TurnWriter): string[] {
  const corpus = new Corpus(18);
  const lines: string[] = [];
  let answer: string | null = null;
  for (let t = 0; t < turns; t++) {
    if (answer !== null) {
      lines.push(writer.entry(`r${t}`, answer, 'user', corpus.sentence(), 2 * t));
      lines.push(writer.entry(`ra${t}`, `r${t}`, 'assistant', corpus.sentence(), 2 * t));
    }
    lines.push(writer.entry(`u${t}`, answer, 'user', corpus.sentence(), 2 * t + 1));
    lines.push(writer.entry(`a${t}`, `u${t}`, 'assistant', corpus.sentence(), 2 * t + 1));
    answer = `a${t}`;
  }
  return lines;
}

const at = (second: number) => new Date(Date.UTC(2025, 10, 1) + second * 1000).toISOString();

function writeClaude(file: string, turns: number): void {
  const sessionId = '00000000-0000-4000-8000-00000000b0a7';
  const uuid = (id: string) => `${sessionId.slice(0, 24)}${id.padStart(12, '0')}`;
  const lines = branchyLines(turns, {
    entry: (id, parent, role, text, second) =>
      JSON.stringify({
        parentUuid: parent === null ? null : uuid(parent),
        isSidechain: false,
        cwd: '/home/bench/project',
        sessionId,
        version: '2.0.55',
        type: role,
        message: role === 'user' ? { role, content: text } : { id: `msg_${id}`, role, model: 'claude-sonnet-4-5', content: [{ type: 'text', text }] },
        uuid: uuid(id),
        timestamp: at(second),
      }),
  });
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

function writePi(file: string, turns: number): void {
  const header = JSON.stringify({ type: 'session', version: 3, id: 'bench-pi-branches', timestamp: at(0), cwd: '/home/bench/project' });
  const lines = branchyLines(turns, {
    entry: (id, parent, role, text, second) =>
      JSON.stringify({
        type: 'message',
        id,
        parentId: parent,
        timestamp: at(second),
        message: role === 'user' ? { role, content: [{ type: 'text', text }] } : { role, content: [{ type: 'text', text }], model: 'claude-opus-4-5' },
      }),
  });
  fs.writeFileSync(file, `${[header, ...lines].join('\n')}\n`);
}

const FILES: { source: ImportSourceName; name: string; write: (file: string, turns: number) => void; turns: number }[] = [
  { source: 'claude-code', name: '00000000-0000-4000-8000-00000000b0a7.jsonl', write: writeClaude, turns: 460 },
  { source: 'pi', name: 'branches.jsonl', write: writePi, turns: 2900 },
];
