/**
 * The session tree (docs/DESIGN.md#branches): a fork made, the branches at a point,
 * every point where a session's branches part, and a session's family by parent_id.
 */
import type Database from 'better-sqlite3';
import type { BranchPoint, SessionFamily, SessionMeta } from '../../shared/types';
import { LoomError } from '../errors';
import { branchTitle, type BranchKind } from './branch-title';
import { forkRows, inheritRecords } from './repositories/forks';
import { nextUpdateTime } from './repositories/sessions';
import { META_COLUMNS, metaFromRow, type MetaRow } from './rows';
import { messageCount } from './session-writes';
import { prepared } from './statements';
import { LIVE } from './trash';
import { forkTarget, segmentsOf } from './transcript-chain';

/**
 * Fork `id` of session `source` (named `sourceId` in errors) sharing its first `at`
 * messages (all when undefined; a given point counts from 1), with the records it inherits,
 * titled as the `branch` it is (branch-title.ts). Returns its pk.
 */
export function forkSession(db: Database.Database, source: number, sourceId: string, id: string, at: number | undefined, branch: BranchKind): number {
  const length = messageCount(db, source);
  const point = at ?? length;
  if (!Number.isInteger(point) || point < (at === undefined ? 0 : 1) || point > length) {
    throw new LoomError(`Cannot fork at message ${point}: session ${sourceId} has ${length} transcript messages (count from 1).`, 'bad_fork_point');
  }
  const now = nextUpdateTime(db);
  const title = branchTitle(db, source, point, branch, branchesAt(db, source, point).length + 1);
  const fork = forkRows(db, source, point, { id, created_at: now, updated_at: now, message_count: point, note: null, title });
  inheritRecords(db, fork, source, point, length);
  return fork;
}

/**
 * The branches sharing the first `at` messages of session `pk` and going their own way
 * after them, oldest first: the session those messages belong to if it goes on, and every
 * fork made at that point.
 */
export function branchesAt(db: Database.Database, pk: number, at: number): SessionMeta[] {
  const owner = forkTarget(db, pk, at);
  const rows = prepared(
    db,
    `SELECT ${META_COLUMNS} FROM sessions s WHERE ${LIVE} AND ((s.pk = ? AND s.message_count > ?) OR (s.fork_parent_pk = ? AND s.fork_at = ?)) ORDER BY s.pk`,
  ).all(owner, at, owner, at) as MetaRow[];
  return rows.map(metaFromRow);
}

/**
 * Every place in session `pk`'s transcript where other branches go their own way: `at`,
 * the index of the first message that differs; the branches with a message there, oldest
 * first (branchesAt, less forks that stop at `at`); and which of them this session follows.
 * Read from the chain's segments, so a long transcript costs one query per segment.
 */
export function branchPoints(db: Database.Database, pk: number): BranchPoint[] {
  const length = messageCount(db, pk);
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
          WHERE ${LIVE} AND s.message_count > ? AND (s.pk = ? OR (s.fork_parent_pk = ? AND s.fork_at = ?)) ORDER BY s.pk`,
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
      prepared(db, `SELECT ${META_COLUMNS} FROM sessions s WHERE s.parent_id = ? AND s.id <> ? AND ${LIVE} ORDER BY s.pk LIMIT ?`).all(
        parentId,
        meta.id,
        limit,
      ) as MetaRow[]
    ).map(metaFromRow);
  const parentRow =
    meta.parent_id === null
      ? undefined
      : (prepared(db, `SELECT ${META_COLUMNS} FROM sessions s WHERE s.id = ? AND ${LIVE}`).get(meta.parent_id) as MetaRow | undefined);
  return {
    parent: parentRow ? metaFromRow(parentRow) : null,
    siblings: meta.parent_id === null ? [] : byParent(meta.parent_id),
    children: byParent(meta.id),
    members: familyMembers(db, meta.id, limit),
  };
}

/**
 * Session `id`'s family from its root: up the parent_id chain while the parent is live, then
 * every live session below that root, oldest first, at most `limit` of them besides the root.
 * When the root's own parent is gone (deleted, or in the Trash), its other forks are roots
 * of the family too: the family is what the user forked from one session.
 */
function familyMembers(db: Database.Database, id: string, limit: number): SessionMeta[] {
  const rows = prepared(
    db,
    `WITH RECURSIVE up(id, parent_id, depth) AS (
       SELECT s.id, s.parent_id, 0 FROM sessions s WHERE s.id = @id
       UNION ALL
       SELECT s.id, s.parent_id, up.depth + 1 FROM sessions s JOIN up ON s.id = up.parent_id WHERE ${LIVE}
     ),
     root AS (SELECT id, parent_id FROM up ORDER BY depth DESC LIMIT 1),
     down(id) AS (
       SELECT s.id FROM sessions s, root WHERE s.id = root.id OR (s.parent_id = root.parent_id AND ${LIVE})
       UNION
       SELECT s.id FROM sessions s JOIN down ON s.parent_id = down.id WHERE ${LIVE}
     )
     SELECT ${META_COLUMNS} FROM sessions s WHERE s.id IN (SELECT id FROM down) ORDER BY s.pk LIMIT @limit`,
  ).all({ id, limit: limit + 1 }) as MetaRow[];
  return rows.map(metaFromRow);
}
