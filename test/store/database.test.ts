import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { LoomError } from '../../src/core/errors';
import { backupPath, databasePath, openDatabase } from '../../src/core/store/db';
import { MIGRATIONS, latestVersion, readSchemaVersion, type Migration } from '../../src/core/store/migrations';
import { SessionStore } from '../../src/core/store/session-store';
import { ensureSqliteLoads } from '../../src/core/store/sqlite';
import type { ChatMessage } from '../../src/shared/types';
import { bytes, conversation, mode, openStore, tempDir, user } from './helpers';

describe('opening the database', () => {
  it('creates the folder 0700 and the database files 0600', () => {
    const dataDir = path.join(tempDir(), 'nested', 'data');
    const store = openStore(dataDir);
    store.create({ messages: conversation() });
    expect(mode(dataDir)).toBe(0o700);
    const files = fs.readdirSync(dataDir).filter((n) => n.startsWith('loom.db'));
    expect(files).toEqual(expect.arrayContaining(['loom.db', 'loom.db-wal', 'loom.db-shm']));
    for (const name of files) expect(mode(path.join(dataDir, name))).toBe(0o600);
  });

  it('runs in WAL mode with a busy timeout, foreign keys and full sync', () => {
    const { db } = openStore();
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(readSchemaVersion(db)).toBe(MIGRATIONS.at(-1)!.version);
  });

  it('reopens an existing database with its sessions', () => {
    const first = openStore();
    const { id } = first.create({ messages: conversation() });
    first.close();
    const second = openStore(first.dataDir);
    expect(second.getTranscript(id)).toEqual(conversation());
    expect(fs.readdirSync(first.dataDir).some((n) => n.includes('.bak-'))).toBe(false);
  });
});

describe('a data directory that cannot be one', () => {
  it('refuses a path that is a file, or inside a file, in one line and leaves the file alone', () => {
    const file = path.join(tempDir(), 'notes.txt');
    fs.writeFileSync(file, 'my notes');
    expect(() => SessionStore.open(file)).toThrow(new LoomError(`Data directory ${file} is not a folder.`, 'data_dir'));
    const inside = path.join(file, 'loom');
    expect(() => SessionStore.open(inside)).toThrow(new LoomError(`Data directory ${inside} cannot be created: part of its path is a file.`, 'data_dir'));
    expect(fs.readFileSync(file, 'utf8')).toBe('my notes');
  });
});

describe('the SQLite native module', () => {
  it('is the Node-API build from the npm package, which the store opens, writes and reopens', () => {
    const dataDir = path.join(tempDir(), 'data');
    const store = SessionStore.open(dataDir);
    const { id } = store.create({ messages: conversation() });
    store.close();
    expect(openStore(dataDir).getTranscript(id)).toEqual(conversation());
    const prebuild = `node_modules/better-sqlite3/prebuilds/${process.platform}-${process.arch}.node`;
    expect(fs.existsSync(fileURLToPath(new URL(`../../${prebuild}`, import.meta.url)))).toBe(true);
    expect(fs.existsSync(fileURLToPath(new URL('../../node_modules/better-sqlite3/build', import.meta.url)))).toBe(false);
  });

  it('that cannot be loaded is one line that says what to do', () => {
    const bogus = path.join(tempDir(), 'better_sqlite3.node');
    fs.writeFileSync(bogus, 'not a shared library');
    let error: unknown;
    try {
      ensureSqliteLoads(bogus);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(LoomError);
    expect((error as LoomError).code).toBe('db_native');
    expect((error as Error).message).toMatch(
      /^The SQLite module for \S+ could not be loaded \(.+\); reinstall Loom \(`npm ci`\), or see README\.md for the supported platforms\.$/,
    );
    expect((error as Error).message).not.toContain('\n');
    expect(() => ensureSqliteLoads()).not.toThrow();
  });
});

describe('files that are not a Loom database', () => {
  it('refuses a corrupt file by name and leaves it byte for byte unchanged', () => {
    const dataDir = tempDir();
    const file = databasePath(dataDir);
    fs.writeFileSync(file, Buffer.alloc(8192, 'not a database at all. '));
    const before = bytes(file);
    expect(() => SessionStore.open(dataDir)).toThrow(
      new LoomError(
        `The session database ${file} is damaged (it does not start with an SQLite header). Run \`loom --doctor --data-dir ${dataDir}\` to check it and salvage what can be read into a new file; the original is left as it is.`,
        'db_damaged',
      ),
    );
    expect(bytes(file).equals(before)).toBe(true);
    expect(fs.readdirSync(dataDir)).toEqual(['loom.db']);
  });

  it('refuses a database with a damaged header the same way', () => {
    const store = openStore();
    store.create({ messages: conversation() });
    store.close();
    const file = databasePath(store.dataDir);
    const damaged = bytes(file);
    damaged.write('garbage garbage!', 0);
    fs.writeFileSync(file, damaged);
    expect(() => SessionStore.open(store.dataDir)).toThrow(/is damaged \(it does not start with an SQLite header\)\. Run `loom --doctor/);
    expect(bytes(file).equals(damaged)).toBe(true);
    expect(fs.readdirSync(store.dataDir)).toEqual(['loom.db']);
  });

  it("refuses another program's SQLite database and leaves it unchanged", () => {
    const dataDir = tempDir();
    const file = databasePath(dataDir);
    const foreign = new Database(file);
    foreign.exec(`CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('mine')`);
    foreign.close();
    const before = bytes(file);
    expect(() => SessionStore.open(dataDir)).toThrow(`${file} is not a Loom session database (it holds other tables); it was left untouched.`);
    expect(bytes(file).equals(before)).toBe(true);
    expect(fs.readdirSync(dataDir)).toEqual(['loom.db']);
  });

  it('refuses a database written by a newer Loom', () => {
    const store = openStore();
    store.db.prepare('UPDATE schema_version SET version = 99').run();
    store.close();
    const before = bytes(databasePath(store.dataDir));
    expect(() => SessionStore.open(store.dataDir)).toThrow(/newer Loom \(schema 99/);
    expect(bytes(databasePath(store.dataDir)).equals(before)).toBe(true);
    expect(fs.readdirSync(store.dataDir)).toEqual(['loom.db']);
  });

  it('marks its file as Loom’s, yet still refuses another program’s database that claims that mark', () => {
    const store = openStore();
    store.close();
    const header = bytes(databasePath(store.dataDir));
    expect(header.subarray(68, 72).toString('latin1')).toBe('Loom');

    const dataDir = tempDir();
    const file = databasePath(dataDir);
    const foreign = new Database(file);
    foreign.pragma('application_id = 0x4c6f6f6d');
    foreign.exec('CREATE TABLE notes (body TEXT)');
    foreign.close();
    const before = bytes(file);
    expect(() => SessionStore.open(dataDir)).toThrow(`${file} is not a Loom session database (it holds other tables); it was left untouched.`);
    expect(bytes(file).equals(before)).toBe(true);
  });

  it('adopts an empty file', () => {
    const dataDir = tempDir();
    fs.writeFileSync(databasePath(dataDir), '');
    expect(openStore(dataDir).list()).toEqual([]);
  });
});

describe('migrations', () => {
  const addStarred: Migration = {
    version: MIGRATIONS.at(-1)!.version + 1,
    description: 'test: a starred flag',
    up: (db) => db.exec('ALTER TABLE sessions ADD COLUMN starred INTEGER NOT NULL DEFAULT 0'),
  };

  it('backs up an existing database before migrating it', () => {
    const store = openStore();
    const { id } = store.create({ title: 'before the upgrade', messages: conversation() });
    store.close();
    const current = MIGRATIONS.at(-1)!.version;

    const db = openDatabase(store.dataDir, { migrations: [...MIGRATIONS, addStarred] });
    try {
      expect(readSchemaVersion(db)).toBe(addStarred.version);
      expect(db.prepare('SELECT starred FROM sessions WHERE id = ?').get(id)).toEqual({ starred: 0 });
    } finally {
      db.close();
    }
    const backup = backupPath(databasePath(store.dataDir), current);
    expect(path.basename(backup)).toBe(`loom.db.bak-v${current}`);
    expect(mode(backup)).toBe(0o600);
    const copy = new Database(backup, { readonly: true });
    try {
      expect(readSchemaVersion(copy)).toBe(current);
      expect(copy.prepare('SELECT title FROM sessions WHERE id = ?').get(id)).toEqual({ title: 'before the upgrade' });
      expect(copy.prepare('SELECT count(*) AS n FROM transcript').get()).toEqual({ n: 5 });
    } finally {
      copy.close();
    }
  });

  it('version 4 keeps the messages of a version 3 database as they were, and records a stopped reply from then on', () => {
    const store = openStore();
    const { id } = store.create({ messages: conversation('the parser') });
    const before = store.getTranscript(id);
    // As version 3 wrote it (without the later stopped, images and facts columns and model changes, nor version 9's sync tables,
    // nor version 10's model windows, pins and compaction details, nor version 11's change log, nor version 12's Trash, nor version 13's project folder, nor version 14's pinned and title_by_loom,
    // nor version 15's file snapshots, nor version 16's agent, nor version 18's sub-agent links, which version 19's sync triggers name, nor version 20's families).
    for (const { name } of store.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'sync_queue_%'`).all() as { name: string }[]) {
      store.db.exec(`DROP TRIGGER ${name}`);
    }
    store.db.exec(
      'DROP TRIGGER sessions_family_created; DROP TRIGGER sessions_family_reparented; DROP INDEX sessions_by_family; ALTER TABLE sessions DROP COLUMN family_id; ' +
        'DROP TRIGGER session_changes_created; DROP TRIGGER session_changes_changed; DROP TRIGGER session_changes_deleted; DROP TRIGGER session_changes_trashed; ' +
        'DROP TABLE session_changes; DROP INDEX sessions_pinned; ALTER TABLE sessions DROP COLUMN pinned; ALTER TABLE sessions DROP COLUMN title_by_loom; DROP INDEX sessions_page_project; ALTER TABLE sessions DROP COLUMN project_dir; ' +
        'DROP TABLE agent_changes; ALTER TABLE sessions DROP COLUMN agent; DROP INDEX sessions_children; ' +
        ['spawned_by', 'spawn_call_id', 'spawn_agent', 'child_state'].map((c) => `ALTER TABLE sessions DROP COLUMN ${c};`).join(' ') +
        ' ' +
        'DROP INDEX sessions_trashed; ALTER TABLE sessions DROP COLUMN deleted_at; ' +
        'DROP TABLE model_windows; DROP TABLE pins; DROP TABLE file_snapshots; ' +
        ['summarised_from', 'kept_from', 'steps', 'carried', 'start_id', 'undone_at'].map((c) => `ALTER TABLE compactions DROP COLUMN ${c};`).join(' '),
    );
    store.db.exec(
      'DROP TABLE sync_state; DROP TABLE sync_outbox; DROP TABLE sync_clocks; DROP TABLE sync_applying; DROP TABLE sync_inbox; ALTER TABLE sessions DROP COLUMN note',
    );
    store.db.exec(
      'ALTER TABLE messages DROP COLUMN images; ALTER TABLE messages DROP COLUMN stopped; ALTER TABLE messages DROP COLUMN facts; DROP TABLE model_changes; UPDATE schema_version SET version = 3',
    );
    store.close();

    const migrated = openStore(store.dataDir);
    expect(readSchemaVersion(migrated.db)).toBe(latestVersion(MIGRATIONS));
    expect(migrated.getTranscript(id)).toEqual(before);
    const stopped: ChatMessage = { role: 'assistant', content: 'Half a repl', stopped: true };
    migrated.appendMessage(id, user('Go on'));
    migrated.appendMessage(id, stopped);
    expect(migrated.getTranscript(id).at(-1)).toEqual(stopped);
    expect(migrated.getContext(id).at(-1)).toEqual(stopped);
  });

  it('leaves the database at its old version when a migration fails', () => {
    const store = openStore();
    const { id } = store.create();
    store.close();
    const broken: Migration = { version: addStarred.version, description: 'test: fails', up: (db) => db.exec('ALTER TABLE nowhere ADD COLUMN x') };
    expect(() => openDatabase(store.dataDir, { migrations: [...MIGRATIONS, broken] })).toThrow(LoomError);
    const reopened = openStore(store.dataDir);
    expect(readSchemaVersion(reopened.db)).toBe(MIGRATIONS.at(-1)!.version);
    expect(reopened.getMeta(id).id).toBe(id);
  });
});
