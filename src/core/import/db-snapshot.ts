/**
 * Another agent's SQLite database read as it is now, without changing a byte of it or of
 * its -wal and -shm (docs/DESIGN.md#importing-from-other-agents).
 *
 * Every connection to a WAL-mode database, a read-only one too, writes the -shm (read
 * marks; the index rebuilt) and creates a missing -shm or -wal; `immutable=1` writes
 * nothing but ignores the -wal, where a running agent keeps its newest rows. So the
 * database and its -wal are copied into a private temporary folder and the copy is read:
 * SQLite rebuilds the copy's -shm from the copied -wal. The copies are made with
 * asynchronous calls, so a window's requests are answered meanwhile.
 *
 * The agent may be writing while the copy is made, and a checkpoint between the two copies
 * would pair an old file with a newer -wal. So the files' sizes and mtimes are compared
 * before and after: when they moved, the copy is made again, and after a few tries the
 * database is refused as busy.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { LoomError, errorMessage } from '../errors';
import { walPath } from '../store/file-shape';
import { openSqlite } from '../store/sqlite';
import type { ImportUnit, UnitsFound } from './units';

/** Copies tried while the agent keeps writing, and the pause that grows between them. */
const COPY_ATTEMPTS = 5;
const RETRY_PAUSE_MS = 50;

export interface DatabaseSnapshot {
  db: Database.Database;
  /** Closes the copy and removes its folder. */
  close: () => Promise<void>;
}

/** A read-only connection to a fresh copy of `file`; a LoomError in one line naming the file when it cannot be had. */
async function openSnapshot(file: string): Promise<DatabaseSnapshot> {
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'loom-import-'));
  const remove = () => fs.rm(folder, { recursive: true, force: true });
  try {
    const copy = await steadyCopy(file, folder);
    const db = openSqlite(copy, { readonly: true, fileMustExist: true });
    try {
      // Reading the schema is the first read of the file: a file that is not a database fails here.
      db.prepare('SELECT count(*) FROM sqlite_master').get();
    } catch (err) {
      db.close();
      throw err;
    }
    return {
      db,
      close: async () => {
        db.close();
        await remove();
      },
    };
  } catch (err) {
    await remove();
    if (err instanceof LoomError) throw err;
    throw new LoomError(`${file}: could not be read as a database (${errorMessage(err)}), skipped`, 'import_unreadable');
  }
}

/** The copy's path, once a copy was made while neither file changed. */
async function steadyCopy(file: string, folder: string): Promise<string> {
  const copy = path.join(folder, path.basename(file));
  for (let attempt = 1; attempt <= COPY_ATTEMPTS; attempt++) {
    const before = await stamps(file);
    await fs.copyFile(file, copy);
    // A missing -wal is no -wal; one left from an earlier attempt must not be paired with this copy.
    await fs.rm(walPath(copy), { force: true });
    if (before.wal) await fs.copyFile(walPath(file), walPath(copy)).catch(ignoreMissing);
    if ((await stamps(file)).text === before.text) return copy;
    await sleep(RETRY_PAUSE_MS * attempt);
  }
  throw new LoomError(`${file}: the database kept changing while it was copied (its agent is busy writing), skipped; import again later`, 'import_unreadable');
}

/** The database's and its -wal's sizes and mtimes, as one comparable text. */
async function stamps(file: string): Promise<{ text: string; wal: boolean }> {
  const main = await fs.stat(file);
  const wal = await fs.stat(walPath(file)).catch(ignoreMissing);
  return { text: `${main.size}:${main.mtimeMs}:${wal ? `${wal.size}:${wal.mtimeMs}` : '-'}`, wal: wal !== undefined };
}

function ignoreMissing(err: NodeJS.ErrnoException): undefined {
  if (err.code === 'ENOENT') return undefined;
  throw err;
}

/** What an agent's database is read with: its snapshot, and the columns of the tables asked for. */
export interface AgentDatabase {
  db: Database.Database;
  columns: Map<string, Set<string>>;
}

/**
 * The sessions of `file`, one unit each, read by `read` from a snapshot that holds at least
 * the `required` tables and columns (else one line naming `agent`, e.g. "an opencode"). The
 * snapshot closes with the units, or at once when reading fails.
 */
export async function databaseUnits(
  file: string,
  agent: string,
  required: Record<string, readonly string[]>,
  read: (database: AgentDatabase) => ImportUnit[],
): Promise<UnitsFound> {
  const snapshot = await openSnapshot(file);
  try {
    const columns = tableColumns(snapshot.db, Object.keys(required));
    const missing = missingSchema(columns, required);
    if (missing) throw new LoomError(`${file}: not ${agent} database this Loom can read (${missing}), skipped`, 'import_unreadable');
    return { units: read({ db: snapshot.db, columns }), database: true, close: snapshot.close };
  } catch (err) {
    await snapshot.close();
    throw err;
  }
}

/** The columns each named table has; a table that is not there has none. */
function tableColumns(db: Database.Database, tables: readonly string[]): Map<string, Set<string>> {
  const columns = new Map<string, Set<string>>();
  for (const table of tables) {
    const rows = db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as { name: string }[];
    columns.set(table, new Set(rows.map((row) => row.name)));
  }
  return columns;
}

/**
 * The first table or column of `required` the database lacks, in words; undefined when it has
 * them all. A database without the first table is not the agent's at all.
 */
function missingSchema(columns: Map<string, Set<string>>, required: Record<string, readonly string[]>): string | undefined {
  for (const [table, names] of Object.entries(required)) {
    const have = columns.get(table);
    if (!have?.size) return `it has no table "${table}"`;
    const missing = names.filter((name) => !have.has(name));
    if (missing.length) return `its table "${table}" has no column ${missing.map((name) => `"${name}"`).join(', ')}`;
  }
  return undefined;
}
