import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveDataDir } from '../src/core/paths';
import { databasePath } from '../src/core/store/db';
import { SessionStore } from '../src/core/store/session-store';
import { ensureSyncOn } from '../src/core/sync/sync-state';
import type { ChatMessage, SessionRecord } from '../src/shared/types';
import { formatBytes, formatMs, formatRatio, printTable, progress, sample, timeOnce, type BenchSection, type Timing } from './harness';
import { JsonFileSessions } from './store-baseline';
import { Corpus } from './store-corpus';

/*
 * Appends are committed through the store's WAL with an fsync (synchronous=FULL, see
 * db.ts); the baseline's rewrites fsync a temp file and rename it, the same guarantee.
 */

/** BENCH_SESSIONS scales the data set down for a quick look; the targets assume 10,000. */
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 10_000);
const MESSAGES_PER_SESSION = 40;
const LONG_SESSION_MESSAGES = 2_000;
const SEED_BATCH = 250;
/** A mid-frequency technical word: it occurs in a few percent of all messages. */
const SEARCH_WORD = 'deadlock';
/** A common word, in most sessions: the worst case for ranking (every match is a candidate). */
const COMMON_WORD = 'code';
const APPEND_RUNS = 1_000;
const BASELINE_APPEND_RUNS = 100;

const TARGETS = { list: 20, search: 50, commonSearch: 100, open: 30, appendP99: 5, fork: 50, restore: 50, speedup: 100 };
const RESTORE_RUNS = 30;

export const storeSection: BenchSection = {
  name: `Session store: ${SESSIONS.toLocaleString('en-US')} sessions × ${MESSAGES_PER_SESSION} messages`,
  run: runStoreBench,
};

interface Stores {
  store: SessionStore;
  baseline: JsonFileSessions;
  longId: string;
  /** The same number of sessions, half of them forks (search must walk to them). */
  withForks: SessionStore;
}

async function runStoreBench(): Promise<void> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-'));
  const store = SessionStore.open(resolveDataDir(undefined, { LOOM_HOME: path.join(home, 'loom') }));
  const withForks = SessionStore.open(resolveDataDir(undefined, { LOOM_HOME: path.join(home, 'loom-forks') }));
  try {
    const stores: Stores = { store, baseline: new JsonFileSessions(path.join(home, 'baseline')), longId: '', withForks };
    const seeded = timeOnce(() => (stores.longId = seed(stores)));
    progress(`seeded both stores in ${formatMs(seeded)}`);
    progress(`seeded the store with forks in ${formatMs(timeOnce(() => seedWithForks(withForks)))}`);
    report(stores, await measure(stores));
  } finally {
    store.close();
    withForks.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** Writes the same sessions to both stores; SQLite through the store's real write path, batched in outer transactions. */
function seed({ store, baseline }: Stores): string {
  const corpus = new Corpus(42);
  const toRecord = (id: string, transcript: ChatMessage[]): SessionRecord => ({
    ...store.getMeta(id),
    messages: transcript,
    agent_changes: [],
    transcript,
    compactions: [],
    plan: store.getPlan(id),
    usage: store.getUsage(id),
    transcript_facts: store.getTranscriptFacts(id),
    model_changes: [],
  });
  for (let start = 0; start < SESSIONS; start += SEED_BATCH) {
    const records = store.db.transaction(() => {
      const batch: SessionRecord[] = [];
      for (let i = start; i < Math.min(SESSIONS, start + SEED_BATCH); i++) {
        const messages = corpus.session(MESSAGES_PER_SESSION);
        const { id } = store.create({ model: 'gemma4', cwd: `/home/user/projects/${corpus.word()}`, title: i % 3 === 0 ? corpus.sentence() : null, messages });
        store.setSummary(id, corpus.sentence());
        store.recordUsage(id, 'chat', { prompt_tokens: corpus.int(1000, 20000), completion_tokens: corpus.int(100, 3000), cost_usd: 0 });
        if (i % 20 === 0) store.setArchived(id, true);
        batch.push(toRecord(id, messages));
      }
      return batch;
    })();
    for (const record of records) baseline.seed(record);
    if ((start / SEED_BATCH) % 8 === 0) progress(`  seeded ${start + records.length} sessions`);
  }
  const longMessages = corpus.session(LONG_SESSION_MESSAGES);
  const long = store.db.transaction(() =>
    store.create({ model: 'gemma4', cwd: '/home/user/projects/loom', title: 'A very long session', messages: longMessages }),
  )();
  baseline.seed(toRecord(long.id, longMessages));
  const indexed = timeOnce(() => store.updateSearchIndex());
  progress(`  indexed for search in ${formatMs(indexed)}`);
  // What the store's idle maintenance does; the WAL file stays allocated for reuse, as in a running app.
  store.db.pragma('wal_checkpoint(PASSIVE)');
  // Flush the seeding's dirty pages now, so the kernel's writeback does not land in the
  // middle of a timed fsync.
  execFileSync('sync');
  return long.id;
}

/**
 * SESSIONS sessions, half of them forks: each root is forked once at a random message and
 * the fork goes on to as many messages as the root has; one root in 20 is archived after
 * its fork (its fork must still be found). Forks copy no rows, so search finds their shared
 * messages through the fork tree; no baseline, which would copy them.
 */
function seedWithForks(store: SessionStore): void {
  const corpus = new Corpus(43);
  for (let start = 0; start < SESSIONS / 2; start += SEED_BATCH) {
    store.db.transaction(() => {
      for (let i = start; i < Math.min(SESSIONS / 2, start + SEED_BATCH); i++) {
        const { id } = store.create({
          model: 'gemma4',
          cwd: `/home/user/projects/${corpus.word()}`,
          title: i % 3 === 0 ? corpus.sentence() : null,
          messages: corpus.session(MESSAGES_PER_SESSION),
        });
        store.setSummary(id, corpus.sentence());
        const at = corpus.int(2, MESSAGES_PER_SESSION - 1);
        const fork = store.fork(id, at).id;
        for (let n = at; n < MESSAGES_PER_SESSION; n++) store.appendMessage(fork, n % 2 === 0 ? corpus.userMessage() : corpus.answer());
        if (i % 20 === 0) store.setArchived(id, true);
      }
    })();
  }
  store.updateSearchIndex();
  store.db.pragma('wal_checkpoint(PASSIVE)');
  execFileSync('sync');
}

interface Result {
  label: string;
  loom: Timing;
  /** None for the store with forks. */
  baseline?: Timing;
  stat: 'p50' | 'p99';
  target?: number;
  speedup?: boolean;
}

async function measure({ store, baseline, longId, withForks }: Stores): Promise<{ results: Result[]; exportBytes: number; matches: number; commonIn: number }> {
  const corpus = new Corpus(7);
  const results: Result[] = [];
  const run = (r: Result) => {
    progress(`  ${r.label}: ${formatMs(r.loom[r.stat])}${r.baseline ? ` vs ${formatMs(r.baseline[r.stat])}` : ''}`);
    results.push(r);
  };
  progress('measuring');
  run({
    label: 'list first 50',
    stat: 'p50',
    target: TARGETS.list,
    speedup: true,
    loom: sample(() => store.list({ limit: 50 }), 50),
    baseline: sample(() => baseline.list(50), 3, 0),
  });
  // The sidebar's page: the pinned sessions and 50 more, and the cursor; the second page from it.
  for (const [label, listed] of [
    ['sidebar page of 50', store],
    ['sidebar page of 50, half forks', withForks],
  ] as const) {
    const next = listed.listPage({ limit: 50 }).next ?? undefined;
    run({ label, stat: 'p50', target: TARGETS.list, loom: sample(() => listed.listPage({ limit: 50 }), 50) });
    run({ label: `${label}, second page`, stat: 'p50', target: TARGETS.list, loom: sample(() => listed.listPage({ limit: 50, after: next }), 50) });
  }
  run({
    label: `search "${SEARCH_WORD}", top 20`,
    stat: 'p50',
    target: TARGETS.search,
    speedup: true,
    loom: sample(() => store.search(SEARCH_WORD, { limit: 20 }), 30),
    baseline: sample(() => baseline.search(SEARCH_WORD, 20), 3, 0),
  });
  run({
    label: `search "${COMMON_WORD}", top 20`,
    stat: 'p50',
    target: TARGETS.commonSearch,
    loom: sample(() => store.search(COMMON_WORD, { limit: 20 }), 30),
    baseline: sample(() => baseline.search(COMMON_WORD, 20), 3, 0),
  });
  for (const word of [SEARCH_WORD, COMMON_WORD]) {
    run({
      label: `search "${word}", top 20, half forks`,
      stat: 'p50',
      target: word === SEARCH_WORD ? TARGETS.search : TARGETS.commonSearch,
      loom: sample(() => withForks.search(word, { limit: 20 }), 30),
    });
  }
  run({
    label: `open context (${LONG_SESSION_MESSAGES.toLocaleString('en-US')} messages)`,
    stat: 'p50',
    target: TARGETS.open,
    loom: sample(() => store.getContext(longId), 30),
    baseline: sample(() => baseline.openContext(longId), 10),
  });
  run({
    label: 'fork that session',
    stat: 'p50',
    target: TARGETS.fork,
    loom: sample(() => store.fork(longId), 10),
    baseline: sample(() => baseline.fork(longId), 10),
  });
  // Sessions deleted beforehand (docs/DESIGN.md#trash), one per run: only the restore is timed.
  const trashed = store
    .list({ limit: RESTORE_RUNS + 3 })
    .filter((meta) => meta.id !== longId)
    .map((meta) => meta.id);
  for (const id of trashed) store.trash(id);
  // sample's warm-up run gets a negative index; each run restores a session of its own.
  const toRestore = (i: number): string => trashed[i < 0 ? -1 - i : i + 1] ?? '';
  run({
    label: 'restore from Trash',
    stat: 'p50',
    target: TARGETS.restore,
    loom: sample((i) => store.restore(toRestore(i)), Math.min(RESTORE_RUNS, trashed.length - 1)),
  });
  // JSON is rendered before exportSession returns its promise: the synchronous time is the whole work.
  let exported = Promise.resolve('');
  run({
    label: 'export it (JSON)',
    stat: 'p50',
    loom: sample(() => (exported = store.exportSession(longId)), 5),
    baseline: sample(() => baseline.exportSession(longId), 5),
  });
  const exportBytes = (await exported).length;
  const appends = Array.from({ length: APPEND_RUNS + 5 }, () => corpus.answer());
  // Warm-up runs (i < 0) take the first five, measured ones the rest.
  const appendOf = (i: number) => {
    const message = appends[i < 0 ? -i : i + 5];
    if (!message) throw new Error(`no message for append run ${i}`);
    return message;
  };
  const append = sample((i) => store.appendMessage(longId, appendOf(i)), APPEND_RUNS, 5);
  const baselineAppend = sample((i) => baseline.append(longId, appendOf(i)), BASELINE_APPEND_RUNS, 2);
  run({ label: 'append one message', stat: 'p50', loom: append, baseline: baselineAppend });
  run({ label: 'append one message', stat: 'p99', target: TARGETS.appendP99, loom: append, baseline: baselineAppend });
  // With sync on (docs/DESIGN.md#sync-through-a-hub) a trigger also queues each append for the hub, in its transaction.
  ensureSyncOn(store.db, 'bench hub', 'bench');
  const queued = sample((i) => store.appendMessage(longId, appendOf(i)), APPEND_RUNS, 5);
  run({ label: 'append one message, sync on', stat: 'p99', target: TARGETS.appendP99, loom: queued, baseline: baselineAppend });
  const matches = (store.db.prepare(`SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH ?`).get(SEARCH_WORD) as { n: number }).n;
  const commonIn = (
    store.db
      .prepare(`SELECT count(DISTINCT t.session_pk) AS n FROM messages_fts JOIN transcript t ON t.message_id = messages_fts.rowid WHERE messages_fts MATCH ?`)
      .get(COMMON_WORD) as { n: number }
  ).n;
  return { results, exportBytes, matches, commonIn };
}

function report({ store, baseline }: Stores, { results, exportBytes, matches, commonIn }: Awaited<ReturnType<typeof measure>>): void {
  const rows = results.map((r) => {
    const loom = r.loom[r.stat];
    const base = r.baseline?.[r.stat];
    const ratio = base === undefined ? undefined : base / loom;
    const targets = [r.target !== undefined ? `≤ ${r.target} ms` : '', r.speedup ? `≥ ${TARGETS.speedup}×` : ''].filter(Boolean);
    const met = (r.target === undefined || loom <= r.target) && (!r.speedup || (ratio ?? 0) >= TARGETS.speedup);
    return [
      `${r.label} (${r.stat})`,
      formatMs(loom),
      base === undefined ? '-' : formatMs(base),
      ratio === undefined ? '-' : formatRatio(ratio),
      targets.join(', ') || '-',
      targets.length ? (met ? 'yes' : 'NO') : '-',
    ];
  });
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  const dbSize = fs.statSync(databasePath(store.dataDir)).size;
  const baseSize = baseline.sizeOnDisk();
  rows.push(['size on disk', formatBytes(dbSize), formatBytes(baseSize), `${(dbSize / baseSize).toFixed(2)} of baseline`, '-', '-']);
  printTable(
    `Session store (${SESSIONS.toLocaleString('en-US')} sessions × ${MESSAGES_PER_SESSION} + one of ${LONG_SESSION_MESSAGES.toLocaleString('en-US')}; "${SEARCH_WORD}" in ${matches.toLocaleString('en-US')} messages, "${COMMON_WORD}" in ${commonIn.toLocaleString('en-US')} sessions; export ${formatBytes(exportBytes)})`,
    ['operation', 'Loom (SQLite)', 'baseline (JSON files)', 'baseline / Loom', 'target', 'met'],
    rows,
  );
}
