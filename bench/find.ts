/**
 * Find in session (docs/DESIGN.md#find-in-session): the backend's answer to `sessions.find`
 * in a 5,000-message session, a fork that reads 3,000 of its messages from its parent. The
 * renderer's part (fetching the page of the first match, drawing it) is not timed here; the
 * target holds the backend's share of "first match shown" to the whole budget.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SessionStore } from '../src/core/store/session-store';
import { formatMs, printTable, progress, sample, type BenchSection } from './harness';
import { Corpus } from './store-corpus';

const PARENT_MESSAGES = 4_000;
const FORK_AT = 3_000;
const OWN_MESSAGES = 2_000;
const RUNS = 30;
const TARGET_MS = 100;
/** A mid-frequency word, a word in most messages (every message a match), and a phrase. */
const QUERIES = ['deadlock', 'code', '"the code"'];

export const findSection: BenchSection = {
  name: `Find in session: a ${(FORK_AT + OWN_MESSAGES).toLocaleString('en-US')}-message session`,
  run: runFindBench,
};

function runFindBench(): void {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-find-'));
  const store = SessionStore.open(path.join(home, 'data'));
  try {
    const corpus = new Corpus(11);
    const id = store.db.transaction(() => {
      const parent = store.create({ title: 'find parent', messages: corpus.session(PARENT_MESSAGES) });
      const fork = store.fork(parent.id, FORK_AT);
      for (let i = 0; i < OWN_MESSAGES; i++) store.appendMessage(fork.id, corpus.answer());
      return fork.id;
    })();
    const messages = store.getMeta(id).message_count;
    const rows = QUERIES.map((query) => {
      let matches = 0;
      // What the bridge does with the answer too: it goes to the window as JSON.
      const timing = sample(() => (matches = JSON.parse(JSON.stringify({ matches: store.find(id, query) })).matches.length), RUNS, 2);
      progress(`  find ${query}: ${formatMs(timing.p50)} (${matches} matches)`);
      return [
        `find ${query} in a ${messages.toLocaleString('en-US')}-message session: first match shown (p50)`,
        formatMs(timing.p50),
        matches.toLocaleString('en-US'),
        `≤ ${TARGET_MS} ms`,
        timing.p50 <= TARGET_MS ? 'yes' : 'NO',
      ];
    });
    printTable(
      'Find in session (the backend answer only: the renderer fetching and drawing the match is not timed here)',
      ['operation', 'Loom', 'matches', 'target', 'met'],
      rows,
    );
  } finally {
    store.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}
