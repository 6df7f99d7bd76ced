import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { errorMessage } from '../errors';
import { isDamageError } from './damage';
import { databasePath, openDatabase, tableNames } from './db';
import { SCHEMA_VERSION_TABLE } from './migrations';
import { adoptRows } from './repositories/forks';
import { queueEveryMessageForSearch } from './repositories/transcript';
import { withReadOnlyView } from './read-only-view';
import { copyReadableRows, type CopyReport } from './salvage-copy';

/** What a salvage kept of one table. */
export interface TableSalvage extends CopyReport {
  table: string;
  /** Rows read but dropped because their parent row (a session, a message) was lost. */
  orphans: number;
}

export interface SalvageResult {
  /** The new database; undefined when not one row could be read. */
  file?: string;
  tables: TableSalvage[];
  /** Why nothing could be read at all (the list of tables itself is unreadable). */
  failure?: string;
}

/**
 * Copies every row that can still be read from a damaged loom.db into a new database with
 * the current schema, `loom.salvaged-<time>.db` beside it, and never writes the damaged
 * file. SQLite's own recovery (the shell's .recover, sqlite_dbpage) is not part of the
 * SQLite that better-sqlite3 bundles, so the rows are read through the ordinary b-trees,
 * stepping over the key ranges whose pages are broken (salvage-copy.ts). Rows whose
 * session or message body was lost are dropped, so the copy is a consistent database;
 * the full-text indexes are rebuilt from the rows by the store's own catch-up.
 */
export function salvageDatabase(file: string): SalvageResult {
  const staging = fs.mkdtempSync(path.join(path.dirname(file), '.loom-salvage-'));
  try {
    const target = openDatabase(staging);
    let result: SalvageResult;
    try {
      result = fillFrom(file, target);
    } finally {
      target.close();
    }
    const saved = result.tables.reduce((sum, t) => sum + t.saved, 0);
    return saved > 0 ? { ...result, file: moveBeside(databasePath(staging), file) } : result;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

function fillFrom(file: string, target: Database.Database): SalvageResult {
  // Rows arrive in table order, children possibly before their parents; dangling ones are
  // removed at the end instead.
  target.pragma('foreign_keys = OFF');
  let tables: TableSalvage[];
  try {
    tables = withReadOnlyView(file, (source) => {
      // SQLite refuses a file shorter than its header says unless the schema is writable,
      // which better-sqlite3's defensive mode forbids; the connection itself stays
      // read-only, and then SQLite reads the pages that are there.
      source.unsafeMode(true);
      source.pragma('writable_schema = ON');
      // One snapshot for every table, so a Loom still writing cannot mix two states.
      source.exec('BEGIN');
      const present = new Set(tableNames(source));
      return copyableTables(target)
        .filter((table) => present.has(table))
        .map((table) => ({ table, ...copyReadableRows(source, target, table), orphans: 0 }));
    });
  } catch (err) {
    if (!isDamageError(err)) throw err;
    return { tables: [], failure: errorMessage(err) };
  }
  // Before any row is deleted: the message delete trigger keeps the index consistent only
  // for messages it finds queued.
  queueEveryMessageForSearch(target);
  adoptRowsOfLostParents(target);
  dropOrphans(target, tables);
  return { tables };
}

/**
 * The tables holding data: not the schema version (the new file has its own), not the
 * full-text indexes nor their shadow tables (rebuilt from the rows), not the change log
 * (the new file's triggers log the copied sessions; the old file's readers watch the old file).
 */
function copyableTables(db: Database.Database): string[] {
  const rows = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as { name: string; sql: string }[];
  const indexes = rows.filter((r) => /^CREATE VIRTUAL TABLE/i.test(r.sql)).map((r) => r.name);
  const derived = (name: string) => indexes.some((index) => name === index || name.startsWith(`${index}_`));
  return rows.map((r) => r.name).filter((name) => name !== SCHEMA_VERSION_TABLE && name !== 'session_changes' && !derived(name));
}

/**
 * A fork whose parent's session row was on a broken page would go as an orphan, its own
 * messages with it. Instead it takes the lost parent's transcript rows it shared (those
 * still readable) and stands alone (docs/DESIGN.md#branches); what the parent read from
 * its own parent is lost with the parent's row.
 */
function adoptRowsOfLostParents(db: Database.Database): void {
  const forks = db
    .prepare('SELECT pk, fork_parent_pk AS lost, fork_at FROM sessions WHERE fork_parent_pk IS NOT NULL AND fork_parent_pk NOT IN (SELECT pk FROM sessions)')
    .all() as { pk: number; lost: number; fork_at: number }[];
  for (const fork of forks) adoptRows(db, fork, fork.lost, { fork_parent_pk: null, fork_at: 0 });
}

/** Deletes rows whose foreign key points at a row that was not saved, until none are left. */
function dropOrphans(db: Database.Database, tables: TableSalvage[]): void {
  for (let removed = 1; removed > 0;) {
    removed = 0;
    for (const entry of tables) {
      const keys = db.prepare(`SELECT "table" AS parent, "from" AS child, "to" AS parentKey FROM pragma_foreign_key_list(?)`).all(entry.table) as {
        parent: string;
        child: string;
        parentKey: string | null;
      }[];
      for (const { parent, child, parentKey } of keys) {
        const { changes } = db
          .prepare(`DELETE FROM "${entry.table}" WHERE "${child}" IS NOT NULL AND "${child}" NOT IN (SELECT "${parentKey ?? 'rowid'}" FROM "${parent}")`)
          .run();
        entry.saved -= changes;
        entry.orphans += changes;
        removed += changes;
      }
    }
  }
}

/** Moves the finished copy next to the damaged file under a name no other file has. */
function moveBeside(copy: string, damaged: string): string {
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  for (let n = 1; ; n++) {
    const target = path.join(path.dirname(damaged), `loom.salvaged-${stamp}${n > 1 ? `-${n}` : ''}.db`);
    try {
      // A link never replaces an existing file, unlike a rename.
      fs.linkSync(copy, target);
      return target;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}
