/**
 * Version 12 (docs/DESIGN.md#trash): a deleted session goes to the Trash first. Its row
 * keeps every column and record as they were and gains `deleted_at`; every list, search,
 * read by id and write leaves it out (LIVE), so it is gone everywhere at once, and a
 * restore clears the column, bringing it back exactly. Purging, after `trashDays` or by
 * hand, is what deletes the row (forks.ts's deleteSession: its forks take over the rows
 * they read from it, and the sync's tombstone is queued then).
 */
import type Database from 'better-sqlite3';
import type { TrashedSession } from '../../shared/types';
import { META_COLUMNS, metaFromRow, type MetaRow } from './rows';
import { prepared } from './statements';

/** The condition a session alias `s` meets when it is not in the Trash. */
export const LIVE = 's.deleted_at IS NULL';

const DAY_MS = 24 * 60 * 60 * 1000;

export const TRASH = `
  ALTER TABLE sessions ADD COLUMN deleted_at TEXT;
  -- The Trash lists and purges by when; live sessions (NULL) are not in the index.
  CREATE INDEX sessions_trashed ON sessions (deleted_at) WHERE deleted_at IS NOT NULL;
  -- Trashed or restored: the watchers compare the session and see it gone or back.
  CREATE TRIGGER session_changes_trashed AFTER UPDATE OF deleted_at ON sessions WHEN old.deleted_at IS NOT new.deleted_at BEGIN
    INSERT INTO session_changes (session_id, kind) VALUES (new.id, 'changed');
  END;
`;

interface TrashedRow extends MetaRow {
  pk: number;
  deleted_at: string;
}

/** When a session deleted at `deletedAt` is purged, kept `days`. */
function purgeTime(deletedAt: string, days: number): string {
  return new Date(Date.parse(deletedAt) + days * DAY_MS).toISOString();
}

/** The pk of trashed session `id`; undefined when there is none (never in the Trash, or purged). */
export function trashedPk(db: Database.Database, id: string): number | undefined {
  return (prepared(db, 'SELECT pk FROM sessions WHERE id = ? AND deleted_at IS NOT NULL').get(id) as { pk: number } | undefined)?.pk;
}

/** When session `pk` went to the Trash; null while it is live. */
export function trashedAt(db: Database.Database, pk: number): string | null {
  return (prepared(db, 'SELECT deleted_at FROM sessions WHERE pk = ?').pluck().get(pk) as string | null | undefined) ?? null;
}

/** The trashed sessions whose id starts with `prefix` (the one named by a full id), at most two. */
export function matchTrashed(db: Database.Database, prefix: string): string[] {
  const rows = prepared(db, 'SELECT id FROM sessions WHERE id >= ? AND id < ? AND deleted_at IS NOT NULL ORDER BY id LIMIT 2').all(
    prefix,
    `${prefix}\uffff`,
  ) as {
    id: string;
  }[];
  return rows.some((row) => row.id === prefix) ? [prefix] : rows.map((row) => row.id);
}

/** The Trash, most recently deleted first, each with when it is purged when kept `days`. */
export function listTrashed(db: Database.Database, days: number): TrashedSession[] {
  const rows = prepared(
    db,
    `SELECT ${META_COLUMNS}, s.pk, s.deleted_at FROM sessions s WHERE s.deleted_at IS NOT NULL ORDER BY s.deleted_at DESC, s.id DESC`,
  ).all() as TrashedRow[];
  return rows.map((row) => ({ ...metaFromRow(row), deleted_at: row.deleted_at, purge_at: purgeTime(row.deleted_at, days) }));
}

/** The pks of the sessions in the Trash for `days` or longer at `now`, oldest first. */
export function expiredPks(db: Database.Database, days: number, now: number): number[] {
  const before = new Date(now - days * DAY_MS).toISOString();
  return prepared(db, 'SELECT pk FROM sessions WHERE deleted_at IS NOT NULL AND deleted_at <= ? ORDER BY deleted_at').pluck().all(before) as number[];
}
