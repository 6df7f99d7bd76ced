/**
 * Reading the session tree (docs/DESIGN.md#branches): the branches at a point, every
 * point where a session's branches part, and a session's family by parent_id.
 */
import type Database from 'better-sqlite3';
import type { BranchPoint, SessionFamily, SessionMeta } from '../../shared/types';
import { META_COLUMNS, metaFromRow, type MetaRow } from './rows';
import { prepared } from './statements';
import { forkTarget, segmentsOf } from './transcript-chain';

/** SessionStore.branchesAt, for session `pk`. */
export function branchesAt(db: Database.Database, pk: number, at: number): SessionMeta[] {
  const owner = forkTarget(db, pk, at);
  const rows = prepared(
    db,
    `SELECT ${META_COLUMNS} FROM sessions s WHERE (s.pk = ? AND s.message_count > ?) OR (s.fork_parent_pk = ? AND s.fork_at = ?) ORDER BY s.pk`,
  ).all(owner, at, owner, at) as MetaRow[];
  return rows.map(metaFromRow);
}

/** SessionStore.branchPoints, for session `pk` of `length` messages; read from the chain's segments, one query per segment. */
export function branchPoints(db: Database.Database, pk: number, length: number): BranchPoint[] {
  const points: BranchPoint[] = [];
  for (const segment of segmentsOf(db, pk)) {
    const ats = prepared(
      db,
      `SELECT DISTINCT fork_at FROM sessions WHERE fork_parent_pk = ? AND fork_at > ? AND fork_at <= ? AND fork_at < ? AND message_count > fork_at ORDER BY fork_at`,
    ).all(segment.pk, segment.from, segment.to, length) as { fork_at: number }[];
    for (const { fork_at: at } of ats) {
      const rows = prepared(
        db,
        `SELECT s.pk, ${META_COLUMNS} FROM sessions s
          WHERE s.message_count > ? AND (s.pk = ? OR (s.fork_parent_pk = ? AND s.fork_at = ?)) ORDER BY s.pk`,
      ).all(at, segment.pk, segment.pk, at) as (MetaRow & { pk: number })[];
      if (rows.length < 2) continue;
      const mine = forkTarget(db, pk, at + 1);
      points.push({
        at,
        branches: rows.map(metaFromRow),
        current: Math.max(
          0,
          rows.findIndex((row) => row.pk === mine),
        ),
      });
    }
  }
  return points;
}

/** SessionStore.family, for `meta`. */
export function familyOf(db: Database.Database, meta: SessionMeta, limit: number): SessionFamily {
  const byParent = (parentId: string) =>
    (
      prepared(db, `SELECT ${META_COLUMNS} FROM sessions s WHERE s.parent_id = ? AND s.id <> ? ORDER BY s.pk LIMIT ?`).all(
        parentId,
        meta.id,
        limit,
      ) as MetaRow[]
    ).map(metaFromRow);
  const parentRow =
    meta.parent_id === null ? undefined : (prepared(db, `SELECT ${META_COLUMNS} FROM sessions s WHERE s.id = ?`).get(meta.parent_id) as MetaRow | undefined);
  return {
    parent: parentRow ? metaFromRow(parentRow) : null,
    siblings: meta.parent_id === null ? [] : byParent(meta.parent_id),
    children: byParent(meta.id),
  };
}
