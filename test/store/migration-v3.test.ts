import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { backupPath, databasePath } from '../../src/core/store/db';
import { MIGRATIONS, readSchemaVersion } from '../../src/core/store/migrations';
import { prop } from '../support/elements';
import { assistant, openStore, tempDir, user } from './helpers';

/** Made by fixtures/make-v2-database.ts with the store code of schema version 2. */
const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'v2-sessions.db');
const NEXT_REQUESTS = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'fixtures', 'v2-next-requests.json'), 'utf8')) as Record<
  string,
  { id: string; request: string }
>;

/** A data folder holding a copy of the fixture, optionally edited first (e.g. back to version 1). */
function fixtureDataDir(edit?: (db: Database.Database) => void): string {
  const dataDir = path.join(tempDir(), 'data');
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = databasePath(dataDir);
  fs.copyFileSync(FIXTURE, file);
  fs.chmodSync(file, 0o600);
  if (edit) {
    const db = new Database(file);
    edit(db);
    db.close();
  }
  return dataDir;
}

const count = (db: Database.Database, sql: string) => (db.prepare(sql).get() as { n: number }).n;

describe('migration to version 3 (derived working context)', () => {
  it('derives, for every session, the next request the version 2 store would have sent, byte for byte', () => {
    const dataDir = fixtureDataDir();
    const store = openStore(dataDir);
    expect(readSchemaVersion(store.db)).toBe(MIGRATIONS.at(-1)!.version);
    for (const [name, { id, request }] of Object.entries(NEXT_REQUESTS)) {
      expect(JSON.stringify(store.getContext(id)), name).toBe(request);
    }
  });

  it('backs up the version 2 file first, drops the context table and every body only it held, keeps every transcript row', () => {
    // Counted on a copy: opening the fixture itself would leave WAL files beside it.
    const old = new Database(databasePath(fixtureDataDir()), { readonly: true });
    const transcriptRows = count(old, 'SELECT count(*) AS n FROM transcript');
    const transcriptBodies = count(old, 'SELECT count(*) AS n FROM messages WHERE in_transcript = 1');
    const contextRows = count(old, 'SELECT count(*) AS n FROM context');
    old.close();
    const dataDir = fixtureDataDir();
    const store = openStore(dataDir);
    const backup = new Database(backupPath(databasePath(dataDir), 2), { readonly: true });
    expect(readSchemaVersion(backup)).toBe(2);
    expect(count(backup, 'SELECT count(*) AS n FROM context')).toBe(contextRows);
    backup.close();
    expect(count(store.db, `SELECT count(*) AS n FROM sqlite_master WHERE name = 'context'`)).toBe(0);
    expect(count(store.db, 'SELECT count(*) AS n FROM transcript')).toBe(transcriptRows);
    expect(count(store.db, 'SELECT count(*) AS n FROM messages')).toBe(transcriptBodies);
    // Only sessions whose context is not their plain transcript got a start.
    const started = store.db.prepare('SELECT DISTINCT s.id FROM context_starts c JOIN sessions s ON s.pk = c.session_pk').all() as { id: string }[];
    const names = started.map(({ id }) => Object.entries(NEXT_REQUESTS).find(([, v]) => v.id === id)![0]).sort();
    expect(names).toEqual(['compacted', 'forkedLate', 'importedForeign', 'importedOpen', 'replaced']);
    expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(() => store.db.exec(`INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')`)).not.toThrow();
  });

  it('keeps the compaction as the start: a compacted session goes on from its boundary message', () => {
    const store = openStore(fixtureDataDir());
    const { id, request } = prop(NEXT_REQUESTS, 'compacted');
    store.appendMessage(id, user('question 7'));
    store.appendMessage(id, assistant('answer 7'));
    expect(store.getContext(id)).toEqual([...JSON.parse(request), user('question 7'), assistant('answer 7')]);
    expect(store.search('boundary')).toEqual([]);
  });

  it('keeps a migrated fork working when its parent is deleted (old forks own copies of their rows)', () => {
    const store = openStore(fixtureDataDir());
    store.delete(prop(NEXT_REQUESTS, 'compacted').id);
    const forkedLate = prop(NEXT_REQUESTS, 'forkedLate');
    expect(JSON.stringify(store.getContext(forkedLate.id))).toBe(forkedLate.request);
  });

  it('from version 1: version 2 places the compactions where their boundary message shows it, NULL where it cannot; then version 3', () => {
    const dataDir = fixtureDataDir((db) => db.exec('ALTER TABLE compactions DROP COLUMN transcript_index; UPDATE schema_version SET version = 1'));
    const store = openStore(dataDir);
    expect(readSchemaVersion(store.db)).toBe(MIGRATIONS.at(-1)!.version);
    expect(fs.existsSync(backupPath(databasePath(dataDir), 1))).toBe(true);
    expect(fs.existsSync(backupPath(databasePath(dataDir), 2))).toBe(true);
    const positions = (name: string) => store.getCompactions(prop(NEXT_REQUESTS, name).id).map((c) => c.transcript_index);
    // The second summary replaced the first one's boundary message: the first cannot be placed.
    expect(positions('compacted')).toEqual([undefined, 26]);
    expect(positions('forkedLate')).toEqual([undefined, 26]);
    for (const [name, { id, request }] of Object.entries(NEXT_REQUESTS)) {
      expect(JSON.stringify(store.getContext(id)), name).toBe(request);
    }
  });
});
