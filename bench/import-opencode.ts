/**
 * `loom --import-from opencode` from its database (issue 21): an opencode.db of 1,000
 * sessions of 20 messages (a text part each, every fourth reply a tool part), in opencode's
 * schema, imported, then imported again unchanged: each session's stamp (its row count and
 * latest update) is compared, nothing is read.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importFiles, runImport } from '../src/core/import/run';
import { SessionStore } from '../src/core/store/session-store';
import { openSqlite } from '../src/core/store/sqlite';
import { progress, type BenchSection } from './harness';
import { timeImportTwice } from './import';
import { Corpus } from './store-corpus';

const SESSIONS = 1_000;
const MESSAGES_PER_SESSION = 20;

export const importOpencodeSection: BenchSection = {
  name: 'Importing from other agents: an opencode.db of 1,000 sessions, then again unchanged',
  run: runOpencodeBench,
};

async function runOpencodeBench(): Promise<void> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-opencode-'));
  try {
    const file = path.join(home, 'opencode', 'opencode.db');
    writeDatabase(file);
    const store = SessionStore.open(path.join(home, 'data'));
    try {
      await timeImportTwice(
        'Importing from opencode.db',
        store,
        async () => runImport(store, await importFiles({ source: 'opencode', path: path.dirname(file), home })),
        () => `import ${SESSIONS.toLocaleString('en-US')} sessions × ${MESSAGES_PER_SESSION} messages`,
      );
    } finally {
      store.close();
    }
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** The tables opencode's Drizzle schema makes, the columns the importer reads and the ones it does not. */
function writeDatabase(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = openSqlite(file);
  db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, slug text NOT NULL, directory text NOT NULL, title text NOT NULL,
      version text NOT NULL, revert text, time_created integer NOT NULL, time_updated integer NOT NULL);
    CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
    CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
    CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
    CREATE INDEX part_message_id_id_idx ON part (message_id, id);
    CREATE INDEX part_session_idx ON part (session_id);
  `);
  const corpus = new Corpus(21);
  const session = db.prepare("INSERT INTO session VALUES (?, 'global', 'slug', '/home/bench/project', ?, '1.15.7', NULL, ?, ?)");
  const message = db.prepare('INSERT INTO message VALUES (?, ?, ?, ?, ?)');
  const part = db.prepare('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (let s = 0; s < SESSIONS; s++) {
      const id = `ses_${String(s).padStart(8, '0')}`;
      const start = Date.UTC(2026, 0, 1) + s * 60_000;
      session.run(id, corpus.sentence().slice(0, 60), start, start + MESSAGES_PER_SESSION);
      for (let m = 0; m < MESSAGES_PER_SESSION; m++) {
        const messageId = `msg_${String(s).padStart(8, '0')}${String(m).padStart(4, '0')}`;
        const role = m % 2 === 0 ? 'user' : 'assistant';
        const at = start + m;
        message.run(messageId, id, at, at, JSON.stringify({ role, time: { created: at }, ...(role === 'assistant' ? { modelID: 'bench-model' } : {}) }));
        const data =
          role === 'assistant' && m % 8 === 7
            ? {
                type: 'tool',
                callID: `call_${messageId}`,
                tool: 'read',
                state: { status: 'completed', input: { filePath: `${corpus.word()}.ts` }, output: corpus.sentence() },
              }
            : { type: 'text', text: corpus.sentence() };
        part.run(`prt_${messageId}`, messageId, id, at, at, JSON.stringify(data));
      }
    }
  })();
  db.close();
  progress(`  wrote ${SESSIONS} sessions into ${file}`);
}
