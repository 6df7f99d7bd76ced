/**
 * Sessions as a tree (issue 9): forking in the middle of a long session, opening the
 * derived working context of a session compacted ten times, and migrating the 10,000-session
 * database of version 2 (context rows) to version 3 (derived context).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { boundaryMessage } from '../src/core/context/compactor';
import { databasePath, openDatabase } from '../src/core/store/db';
import { toColumns } from '../src/core/store/messages';
import { MIGRATIONS } from '../src/core/store/migrations';
import { SessionStore } from '../src/core/store/session-store';
import type { ChatMessage } from '../src/shared/types';
import { formatBytes, formatMs, printTable, progress, sample, timeOnce, type BenchSection } from './harness';
import { Corpus } from './store-corpus';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 10_000);
const MESSAGES_PER_SESSION = 40;
/** One session in this many was compacted in the version 2 database. */
const COMPACTED_EVERY = 10;
const FORK_SOURCE = 2_000;
const FORK_AT = 1_000;
const FORK_RUNS = 20;
const COMPACTED_MESSAGES = 5_000;
const COMPACTIONS = 10;
const TARGETS = { forkMs: 5, forkBytes: 10 * 1024, openMs: 10 };

export const branchesSection: BenchSection = {
  name: 'Sessions as a tree: fork at a message, derived context, migration to version 3',
  run: runBranchesBench,
};

async function runBranchesBench(): Promise<void> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-tree-'));
  try {
    const rows = [...forkAndOpen(path.join(home, 'tree')), migration(path.join(home, 'v2'))];
    printTable('Sessions as a tree', ['operation', 'Loom', 'target', 'met'], rows);
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

function forkAndOpen(dataDir: string): string[][] {
  const store = SessionStore.open(dataDir);
  try {
    const corpus = new Corpus(9);
    const source = store.db.transaction(() => store.create({ title: 'fork source', messages: corpus.session(FORK_SOURCE) }))();
    const pages = () => store.db.pragma('page_count', { simple: true }) as number;
    const pageSize = store.db.pragma('page_size', { simple: true }) as number;
    const before = pages();
    const fork = sample(() => store.fork(source.id, FORK_AT), FORK_RUNS, 0);
    const grewPerFork = ((pages() - before) * pageSize) / FORK_RUNS;
    progress(`  fork at ${FORK_AT}: ${formatMs(fork.p50)}, ${grewPerFork.toFixed(0)} bytes per fork`);

    const compacted = compactedSession(store, corpus);
    const open = sample(() => store.getContext(compacted), 50, 5);
    progress(`  open compacted context: ${formatMs(open.p50)}`);
    return [
      [
        `fork at message ${FORK_AT.toLocaleString('en-US')} of ${FORK_SOURCE.toLocaleString('en-US')} (p50)`,
        formatMs(fork.p50),
        `≤ ${TARGETS.forkMs} ms`,
        met(fork.p50 <= TARGETS.forkMs),
      ],
      ['database growth per fork (pages, averaged)', `${grewPerFork.toFixed(0)} bytes`, '< 10 KB', met(grewPerFork < TARGETS.forkBytes)],
      [
        `open the context: ${COMPACTIONS} compactions, ${COMPACTED_MESSAGES.toLocaleString('en-US')} messages (p50)`,
        formatMs(open.p50),
        `≤ ${TARGETS.openMs} ms`,
        met(open.p50 <= TARGETS.openMs),
      ],
    ];
  } finally {
    store.close();
  }
}

const met = (ok: boolean) => (ok ? 'yes' : 'NO');

/** 5,000 messages, compacted through the store's own path every 500 (kept: the last user turn on). */
function compactedSession(store: SessionStore, corpus: Corpus): string {
  const messages = corpus.session(COMPACTED_MESSAGES);
  const { id } = store.create({ title: 'compacted ten times' });
  const step = COMPACTED_MESSAGES / COMPACTIONS;
  for (let done = 0; done < COMPACTED_MESSAGES; done += step) {
    store.db.transaction(() => messages.slice(done, done + step).forEach((m) => store.appendMessage(id, m)))();
    const [system, ...rest] = store.getContext(id);
    if (!system) throw new Error('the compacted session has no context');
    const cut = rest.findLastIndex((m, i) => i > 0 && m.role === 'user');
    const summary = `Summary ${done}: ${corpus.sentence()}`;
    const compactedContext = [system, boundaryMessage(summary), ...rest.slice(cut)];
    store.recordCompaction(id, { messages: compactedContext, compaction: { at: new Date().toISOString(), before_tokens: 2, after_tokens: 1, summary } });
  }
  return id;
}

/** A version 2 database written as the version 2 store wrote it; then timed: backup + migration on open. */
function migration(dataDir: string): string[] {
  const seeded = timeOnce(() => seedVersion2(dataDir));
  progress(`  seeded a version 2 database of ${SESSIONS} sessions in ${formatMs(seeded)}`);
  const size = fs.statSync(databasePath(dataDir)).size;
  let migrated = 0;
  const took = timeOnce(() => {
    const db = openDatabase(dataDir);
    migrated = (db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n;
    db.close();
  });
  progress(`  migrated ${migrated} sessions in ${formatMs(took)}`);
  return [`migrate ${migrated.toLocaleString('en-US')} sessions (${formatBytes(size)}) to version 3, backup included`, formatMs(took), 'report', '-'];
}

function seedVersion2(dataDir: string): void {
  const db = openDatabase(dataDir, { migrations: MIGRATIONS.slice(0, 2) });
  const corpus = new Corpus(42);
  const session = db.prepare(
    `INSERT INTO sessions (id, title, status, created_at, updated_at, message_count, plan) VALUES (?, ?, 'saved', ?, ?, ?, '{"todos":[],"scratchpad":""}')`,
  );
  const body = db.prepare('INSERT INTO messages (role, content, tool_calls, tool_call_id, tool_text, in_transcript) VALUES (?, ?, ?, ?, ?, ?)');
  const transcript = db.prepare('INSERT INTO transcript (session_pk, seq, message_id) VALUES (?, ?, ?)');
  const context = db.prepare('INSERT INTO context (session_pk, position, message_id) VALUES (?, ?, ?)');
  const compaction = db.prepare(
    `INSERT INTO compactions (session_pk, at, before_tokens, after_tokens, summary, transcript_index) VALUES (?, '2026-01-01T00:00:00.000Z', 2, 1, ?, ?)`,
  );
  const insertBody = (m: ChatMessage, inTranscript: number) => {
    const c = toColumns(m);
    return Number(body.run(c.role, c.content, c.tool_calls, c.tool_call_id, c.tool_text, inTranscript).lastInsertRowid);
  };
  db.transaction(() => {
    for (let i = 0; i < SESSIONS; i++) {
      const at = new Date(Date.UTC(2026, 0, 1) + i).toISOString();
      const pk = Number(session.run(`bench-${i}`, corpus.sentence(), at, at, MESSAGES_PER_SESSION).lastInsertRowid);
      const ids = corpus.session(MESSAGES_PER_SESSION).map((m, seq) => {
        const id = insertBody(m, 1);
        transcript.run(pk, seq, id);
        return id;
      });
      let kept = ids;
      if (i % COMPACTED_EVERY === 0) {
        const summary = corpus.sentence();
        const [first] = ids;
        if (first === undefined) throw new Error('a session of no messages');
        kept = [first, insertBody(boundaryMessage(summary), 0), ...ids.slice(-4)];
        compaction.run(pk, summary, MESSAGES_PER_SESSION);
      }
      kept.forEach((id, position) => context.run(pk, position, id));
    }
  })();
  db.close();
}
