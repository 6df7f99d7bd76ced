import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { LoomError, errorMessage } from '../errors';
import { ensurePrivateDir } from '../paths';
import { damagedDatabaseError, isDamageError } from './damage';
import { inspectFileShape, notAFileMessage, walPath, type FileShape } from './file-shape';
import { isWritableFolder, withReadOnlyView } from './read-only-view';
import { MIGRATIONS, SCHEMA_VERSION_TABLE, applyMigrations, latestVersion, readSchemaVersion, type Migration } from './migrations';
import { ensureSqliteLoads, openSqlite } from './sqlite';

const DB_FILE_NAME = 'loom.db';

export function databasePath(dataDir: string): string {
  return path.join(dataDir, DB_FILE_NAME);
}

/** The copy taken before migrating a database at version N. */
export function backupPath(file: string, version: number): string {
  return `${file}.bak-v${version}`;
}

export interface OpenOptions {
  /** The schema to migrate to; tests pass extra migrations. */
  migrations?: readonly Migration[];
}

/**
 * Opens <dataDir>/loom.db (creating the folder 0700 and the file 0600), checks that it is
 * a Loom database before writing a single byte to it, then configures and migrates it.
 */
export function openDatabase(dataDir: string, options: OpenOptions = {}): Database.Database {
  const { migrations = MIGRATIONS } = options;
  ensureSqliteLoads();
  createDataDir(dataDir);
  if (!isWritableFolder(dataDir)) {
    throw new LoomError(
      `The data directory ${dataDir} is read-only: Loom writes its sessions there. Nothing was changed; use a folder Loom can write (--data-dir).`,
      'data_dir',
    );
  }
  const file = databasePath(dataDir);
  let shape = inspectFileShape(file);
  if (shape.kind === 'absent') {
    createPrivateFile(file);
    shape = inspectFileShape(file);
  }
  const latest = latestVersion(migrations);
  const stamped = refuseShape(file, shape).kind === 'plausible' && inspectExisting(file, latest);
  const db = connect(file);
  try {
    // A stamped file skipped the look through a read-only view: the same check, here, before
    // configure() may write.
    if (stamped) {
      const problem = identityProblem(file, readIdentity(db), latest);
      if (problem) throw problem;
    }
    configure(db);
    const version = readSchemaVersion(db);
    // A new file (version 0) has nothing to lose, on its first step or any later one.
    applyMigrations(db, migrations, (from) => {
      if (version !== 0) backUp(db, backupPath(file, from));
    });
    if (!stamped) stampAsLoom(db);
    return db;
  } catch (err) {
    db.close();
    if (err instanceof LoomError) throw err;
    throw isDamageError(err)
      ? damagedDatabaseError(file, errorMessage(err))
      : new LoomError(`Could not prepare the session database ${file}: ${errorMessage(err)}`);
  }
}

function createDataDir(dataDir: string): void {
  try {
    ensurePrivateDir(dataDir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new LoomError(`Data directory ${dataDir} is not a folder.`, 'data_dir');
    if (code === 'ENOTDIR') throw new LoomError(`Data directory ${dataDir} cannot be created: part of its path is a file.`, 'data_dir');
    throw new LoomError(`Could not create the data directory ${dataDir}: ${errorMessage(err)}`, 'data_dir');
  }
}

/** SQLite creates database files 0644 and its -wal/-shm files with the database's mode. */
function createPrivateFile(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new LoomError(`Could not create the session database ${file}: ${errorMessage(err)}`);
    }
  }
}

/** Throws for a shape Loom must not open; returns the shape otherwise. */
function refuseShape(file: string, shape: FileShape): FileShape {
  if (shape.kind === 'not-a-file') throw new LoomError(notAFileMessage(shape), 'db_not_file');
  if (shape.kind === 'orphaned-wal') throw orphanedWalError(file, shape.walBytes, shape.empty);
  if (shape.kind === 'not-sqlite' || shape.kind === 'truncated') throw damagedDatabaseError(file, shape.reason);
  return shape;
}

/** SQLite would take the empty file for a new database and delete the -wal with the data. */
export function orphanedWalError(file: string, walBytes: number, empty: boolean): LoomError {
  return new LoomError(
    `The session database ${file} is ${empty ? 'empty' : 'missing'}, but ${walPath(file)} beside it holds ${walBytes} bytes of its changes: the database file was lost. Loom will not start a new database over them; both were left untouched. Restore ${file} from a copy, or move ${walPath(file)} away to start afresh.`,
    'db_lost',
  );
}

/** What identifies a Loom database: its tables and its schema version. */
export interface DatabaseIdentity {
  tables: string[];
  version: number;
}

export function readIdentity(db: Database.Database): DatabaseIdentity {
  return { tables: tableNames(db), version: readSchemaVersion(db) };
}

export function tableNames(db: Database.Database): string[] {
  return db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).pluck().all() as string[];
}

/** Why Loom will not use a readable database: another program's, or a newer Loom's. */
export function identityProblem(file: string, identity: DatabaseIdentity, latest = latestVersion(MIGRATIONS)): LoomError | undefined {
  if (identity.tables.length > 0 && !identity.tables.includes(SCHEMA_VERSION_TABLE)) {
    return new LoomError(`${file} is not a Loom session database (it holds other tables); it was left untouched.`, 'db_foreign');
  }
  if (identity.version > latest) {
    return new LoomError(
      `The session database ${file} was written by a newer Loom (schema ${identity.version}, this one knows ${latest}); update Loom.`,
      'db_newer',
    );
  }
  return undefined;
}

/**
 * SQLite's application id for Loom's files ("Loom" in ASCII), at byte 68 of the header:
 * a file that carries it is Loom's own, so opening it needs no read-only look first.
 */
const LOOM_APPLICATION_ID = 0x4c6f6f6d;

/** Whether the header on disk says Loom (a stamp still in the WAL reads as not yet: the careful path). */
function carriesLoomStamp(file: string): boolean {
  const header = Buffer.alloc(72);
  const fd = fs.openSync(file, 'r');
  try {
    return fs.readSync(fd, header, 0, header.length, 0) === header.length && header.readUInt32BE(68) === LOOM_APPLICATION_ID;
  } finally {
    fs.closeSync(fd);
  }
}

/** Marks a file Loom has opened and migrated as Loom's (once: files made before the stamp get it on their next open). */
function stampAsLoom(db: Database.Database): void {
  if (db.pragma('application_id', { simple: true }) !== LOOM_APPLICATION_ID) db.pragma(`application_id = ${LOOM_APPLICATION_ID}`);
}

/**
 * Reads an existing file through a read-only view: a corrupt file or another program's
 * SQLite database is refused untouched, with nothing created beside it (opening it
 * read-write would already rewrite its header for WAL). A file stamped as Loom's needs no
 * look (~3 ms of every `loom` start): true then, and the caller checks it on its connection.
 */
function inspectExisting(file: string, latest: number): boolean {
  if (carriesLoomStamp(file)) return true;
  let identity: DatabaseIdentity;
  try {
    identity = withReadOnlyView(file, readIdentity);
  } catch (err) {
    if (isDamageError(err)) throw damagedDatabaseError(file, errorMessage(err));
    throw new LoomError(`The session database ${file} could not be read (${errorMessage(err)}); it was left untouched.`, 'db_unreadable');
  }
  const problem = identityProblem(file, identity, latest);
  if (problem) throw problem;
  return false;
}

function connect(file: string): Database.Database {
  try {
    return openSqlite(file, { fileMustExist: true });
  } catch (err) {
    throw new LoomError(`Could not open the session database ${file}: ${errorMessage(err)}`);
  }
}

/** ~40 MB of WAL: see configure(). */
const BACKSTOP_CHECKPOINT_PAGES = 10_000;

function configure(db: Database.Database): void {
  db.pragma('journal_mode = WAL');
  // Another process (the CLI next to the desktop app) may hold the write lock briefly.
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  // FULL: every commit fsyncs the WAL before appendMessage returns, so a reported message
  // survives even a power loss or OS crash; NORMAL would sync only at checkpoints and lose
  // the last ~2 s of writes then (both keep everything through a crash or kill -9 of Loom:
  // test/store/processes.test.ts). Measured on the 2-vCPU bench machine (10,000-session
  // database, rounds of 1,000 appends, load average from /proc/loadavg):
  //   FULL    p50 0.19–0.70 ms; p99 0.56–1.0 ms at load 1.1, 0.53–3.1 ms at 2.6 (all 10
  //           rounds within 5 ms); at load 3–8, when other jobs overcommit the machine,
  //           p99 over 5 ms in 7 of 24 rounds (5.2, 5.2, 5.6, 5.6, 5.7, 7.8, 18.8 ms);
  //   NORMAL  p50 0.05–0.08 ms, p99 0.11–4.3 ms in all 34 rounds.
  // FULL meets the 5 ms p99 budget unless the machine is overloaded, so Loom uses it.
  db.pragma('synchronous = FULL');
  // The store checkpoints when idle (SessionStore.maintain), so an append does not pay for
  // copying the WAL back into the database; this is only the backstop under sustained
  // writes. The WAL file is reused after each checkpoint (a file that keeps growing makes
  // every fsync slower) and trimmed back to 64 MB after a large transaction.
  db.pragma(`wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`);
  db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  // 32 MiB page cache (default 2 MiB): ranking a common search word reads the document
  // sizes of every matching message.
  db.pragma('cache_size = -32768');
}

/** A consistent copy (VACUUM INTO reads one snapshot) written 0600, then renamed into place. */
function backUp(db: Database.Database, target: string): void {
  const partial = `${target}.partial`;
  fs.rmSync(partial, { force: true });
  fs.closeSync(fs.openSync(partial, 'wx', 0o600));
  db.prepare('VACUUM INTO ?').run(partial);
  fs.renameSync(partial, target);
}
