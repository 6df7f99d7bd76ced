/**
 * The session tree (docs/DESIGN.md#branches): a fork's row and what it inherits, rows
 * moving to a branch, forks taking over rows before their parent goes. SessionStore.fork
 * and a sync's divergence (sync/divergence.ts) make forks the same way, here.
 */
import type Database from 'better-sqlite3';
import { prepared } from '../statements';
import { forkTarget, startAtOrBefore } from '../transcript-chain';
import { RECORD_TABLES, insertStart } from './records';
import { setSessionColumns } from './sessions';
import { copyRowsBelow, moveRowsFrom } from './transcript';

/** What a new fork sets itself; the rest (summary, model, cwd, project folder, agent, plan) it copies from its source. */
export interface ForkRow {
  id: string;
  /** The title Loom gave it (branch-title.ts); null: its source's, as its source had it (a divergence). */
  title: string | null;
  created_at: string;
  updated_at: string;
  message_count: number;
  /** Why the fork was made, when not by the user (a divergence). */
  note: string | null;
}

/**
 * The row of a fork of session `source` sharing its first `point` messages: it reads them
 * from the session whose own rows hold them (forkTarget), so no message row is copied.
 * Status saved, not archived, the source its parent. Returns the fork's pk.
 */
export function forkRows(db: Database.Database, source: number, point: number, row: ForkRow): number {
  const { lastInsertRowid } = prepared(
    db,
    `INSERT INTO sessions (id, parent_id, title, summary, status, archived, created_at, updated_at, message_count, model, cwd, project_dir, agent, plan, fork_parent_pk, fork_at, note, title_by_loom)
     SELECT @id, id, COALESCE(@title, title), summary, 'saved', 0, @created_at, @updated_at, @message_count, model, cwd, project_dir, agent, plan, @fork_parent_pk, @fork_at, @note,
            CASE WHEN @title IS NULL THEN title_by_loom ELSE 1 END
       FROM sessions WHERE pk = @source`,
  ).run({ ...row, fork_parent_pk: point === 0 ? null : forkTarget(db, source, point), fork_at: point, source });
  return Number(lastInsertRowid);
}

/**
 * What fork `pk` at `point` of `source` (then `length` messages long) inherits besides the
 * shared rows: the context start and the records made by then. A record without a
 * position (older ones) only goes with a fork of the whole session, and so do the usage
 * totals: they cannot be split by position.
 */
export function inheritRecords(db: Database.Database, pk: number, source: number, point: number, length: number): void {
  const start = startAtOrBefore(db, source, point);
  if (start) insertStart(db, pk, point, start);
  for (const { table, columns, position } of [RECORD_TABLES.compaction, RECORD_TABLES.model_change, RECORD_TABLES.agent_change]) {
    const cols = columns.join(', ');
    prepared(
      db,
      `INSERT INTO ${table} (session_pk, ${cols}) SELECT ?, ${cols} FROM ${table}
        WHERE session_pk = ? AND (${position} <= ? OR (${position} IS NULL AND ? = ?)) ORDER BY id`,
    ).run(pk, source, point, point, length);
  }
  if (point < length) return;
  prepared(
    db,
    `INSERT INTO usage (session_pk, kind, calls, prompt_tokens, completion_tokens, cost_usd)
     SELECT ?, kind, calls, prompt_tokens, completion_tokens, cost_usd FROM usage WHERE session_pk = ?`,
  ).run(pk, source);
}

/**
 * Session `source`'s rows from `at` on, and its records after `at`, become `branch`'s
 * (a fork at `at`); so do its forks past `at`, which read those rows. The records are
 * copied after the inherited ones, so the latest stays latest; the originals go.
 */
export function moveTail(db: Database.Database, source: number, branch: number, at: number): void {
  moveRowsFrom(db, source, branch, at);
  for (const { table, columns, position } of Object.values(RECORD_TABLES)) {
    const cols = columns.join(', ');
    prepared(db, `INSERT INTO ${table} (session_pk, ${cols}) SELECT ?, ${cols} FROM ${table} WHERE session_pk = ? AND ${position} > ? ORDER BY id`).run(
      branch,
      source,
      at,
    );
    prepared(db, `DELETE FROM ${table} WHERE session_pk = ? AND ${position} > ?`).run(source, at);
  }
  prepared(db, 'UPDATE sessions SET fork_parent_pk = ? WHERE fork_parent_pk = ? AND fork_at > ? AND pk <> ?').run(branch, source, at, branch);
  setSessionColumns(db, source, { message_count: at });
}

/**
 * Removes session `pk` and all its rows. Each fork of it first takes over the rows it
 * reads from it (bodies stay shared), then reads the rest from the session's own parent:
 * deleting a parent never breaks a child.
 */
export function deleteSession(db: Database.Database, pk: number): void {
  const parent = prepared(db, 'SELECT fork_parent_pk, fork_at FROM sessions WHERE pk = ?').get(pk) as { fork_parent_pk: number | null; fork_at: number };
  const forks = prepared(db, 'SELECT pk, fork_at FROM sessions WHERE fork_parent_pk = ?').all(pk) as { pk: number; fork_at: number }[];
  for (const fork of forks) adoptRows(db, fork, pk, parent);
  prepared(db, 'DELETE FROM sessions WHERE pk = ?').run(pk);
}

/** Fork `fork` takes its own rows for what it read from `owner`, and from now on reads from `next` (null: stands alone). */
export function adoptRows(
  db: Database.Database,
  fork: { pk: number; fork_at: number },
  owner: number,
  next: { fork_parent_pk: number | null; fork_at: number },
): void {
  copyRowsBelow(db, fork.pk, owner, fork.fork_at);
  setSessionColumns(db, fork.pk, { fork_parent_pk: next.fork_parent_pk, fork_at: next.fork_at });
}
