/**
 * Version 18 (docs/DESIGN.md#sub-agents): a sub-agent is a session of its own, linked to
 * the session whose run_subagent call started it (`spawned_by`, a public id as parent_id
 * is) and to that call (`spawn_call_id`). Lists leave children out unless asked; delete,
 * Trash and archive take a parent's children with it (session-store.ts), so a child never
 * outlives its parent unseen. The link is not parent_id: that one names a fork's source.
 */
import type Database from 'better-sqlite3';
import type { ChildLink, ChildSession, ChildState } from '../../shared/types';
import { META_COLUMNS, metaFromRow, type MetaRow } from './rows';
import { prepared } from './statements';
import { LIVE } from './trash';
import { SESSION_CHANGES_V18 } from './session-changes';
import { segmentsOf } from './transcript-chain';

export const CHILD_LINKS = `
  ALTER TABLE sessions ADD COLUMN spawned_by TEXT;
  ALTER TABLE sessions ADD COLUMN spawn_call_id TEXT;
  ALTER TABLE sessions ADD COLUMN spawn_agent TEXT;
  ALTER TABLE sessions ADD COLUMN child_state TEXT CHECK (child_state IN ('running', 'done', 'failed', 'stopped', 'interrupted'));
  -- A parent's children in the order they started; top-level sessions are not in the index.
  CREATE INDEX sessions_children ON sessions (spawned_by, pk) WHERE spawned_by IS NOT NULL;
  ${SESSION_CHANGES_V18}
`;

/**
 * The condition a session alias `s` meets when it lists on its own: no sub-agent's, or one
 * whose parent is not on this device (a sync brought the child first, or without it): the
 * link is kept, and the child goes under its parent once the parent arrives.
 */
export const TOP_LEVEL = '(s.spawned_by IS NULL OR NOT EXISTS (SELECT 1 FROM sessions p WHERE p.id = s.spawned_by))';

/** The link columns as a write sets them (repositories/sessions.ts): all null for no link (a pulled state may unset one). */
export interface ChildColumns {
  spawned_by: string | null;
  spawn_call_id: string | null;
  spawn_agent: string | null;
  child_state: ChildState | null;
}

interface ChildRow extends MetaRow {
  spawned_by: string;
  spawn_call_id: string;
  spawn_agent: string;
  child_state: ChildState;
}

const CHILD_COLUMNS = `${META_COLUMNS}, s.spawned_by, s.spawn_call_id, s.spawn_agent, s.child_state`;

function childFromRow(row: ChildRow): ChildSession {
  return { ...metaFromRow(row), child: { parent_id: row.spawned_by, call_id: row.spawn_call_id, agent: row.spawn_agent, state: row.child_state } };
}

const CHILDREN_OF = `SELECT ${CHILD_COLUMNS} FROM sessions s JOIN sessions p ON p.id = s.spawned_by WHERE p.pk = ? AND ${LIVE}`;

/** Started first, listed first: by creation time, which sync carries (a pull may create them in another order), then by row. */
const STARTED = 'ORDER BY s.created_at, s.pk';

/**
 * Session `pk`'s live children, in the order they started: its own, and a fork's inherited
 * ones (docs/DESIGN.md#sub-agents) — each fork ancestor's children whose run_subagent result
 * lies in the history the fork reads from that ancestor. Read along the chain, as the
 * transcript is: forking copies no link.
 */
export function listChildren(db: Database.Database, pk: number): ChildSession[] {
  const segments = segmentsOf(db, pk);
  const own = segments.pop();
  const inherited = prepared(
    db,
    `${CHILDREN_OF} AND EXISTS (
       SELECT 1 FROM transcript t JOIN messages m ON m.id = t.message_id
        WHERE t.session_pk = p.pk AND t.seq >= ? AND t.seq < ? AND m.role = 'tool' AND m.tool_call_id = s.spawn_call_id)
     ${STARTED}`,
  );
  const rows = segments.flatMap((segment) => inherited.all(segment.pk, segment.from, segment.to) as ChildRow[]);
  if (own) rows.push(...(prepared(db, `${CHILDREN_OF} ${STARTED}`).all(own.pk) as ChildRow[]));
  return rows.map(childFromRow);
}

/** How many live sub-agents each of sessions `ids` has, for those that have any (the sidebar's disclosure). */
export function childCounts(db: Database.Database, ids: readonly string[]): Record<string, number> {
  if (ids.length === 0) return {};
  const rows = prepared(
    db,
    `SELECT s.spawned_by AS id, COUNT(*) AS n FROM sessions s WHERE s.spawned_by IN (SELECT value FROM json_each(?)) AND ${LIVE} GROUP BY s.spawned_by`,
  ).all(JSON.stringify(ids)) as { id: string; n: number }[];
  return Object.fromEntries(rows.map((row) => [row.id, row.n]));
}

/** The link of session `id`; null for a session no run_subagent call started. */
export function readChildLink(db: Database.Database, id: string): ChildLink | null {
  const row = prepared(db, `SELECT ${CHILD_COLUMNS} FROM sessions s WHERE s.id = ? AND s.spawned_by IS NOT NULL AND ${LIVE}`).get(id) as ChildRow | undefined;
  return row ? childFromRow(row).child : null;
}

/** The child started by call `callId` of session `parentId`, if one was. */
export function childOfCall(db: Database.Database, parentId: string, callId: string): ChildSession | undefined {
  const row = prepared(db, `SELECT ${CHILD_COLUMNS} FROM sessions s WHERE s.spawned_by = ? AND s.spawn_call_id = ? AND ${LIVE}`).get(parentId, callId) as
    ChildRow | undefined;
  return row && childFromRow(row);
}

/** The tools session `pk`'s calls named, each once, in the order first used (a sub-agent's card). */
export function toolsUsed(db: Database.Database, pk: number): string[] {
  const rows = prepared(
    db,
    `SELECT json_extract(call.value, '$.function.name') AS name FROM transcript t JOIN messages m ON m.id = t.message_id, json_each(m.tool_calls) call
     WHERE t.session_pk = ? AND m.tool_calls IS NOT NULL GROUP BY name ORDER BY MIN(t.seq)`,
  ).all(pk) as { name: string | null }[];
  return rows.flatMap((row) => (typeof row.name === 'string' ? [row.name] : []));
}

/** How far down (or up) sub-agent links are followed: so a cycle an edited import or a teammate made cannot loop. */
export const MAX_LINK_DEPTH = 64;

/**
 * Session `pk`'s descendants through sub-agent links (children, their children…), deepest
 * first, trashed ones too: a parent's delete must not leave one behind. Bounded like
 * import-records' lines, so a cycle an edited import made cannot loop, and never the
 * session itself, which such a cycle would name among its own descendants.
 */
export function descendants(db: Database.Database, pk: number): { pk: number; deleted_at: string | null }[] {
  return prepared(
    db,
    `WITH RECURSIVE tree (pk, id, depth) AS (
       SELECT pk, id, 0 FROM sessions WHERE pk = @pk
       UNION SELECT s.pk, s.id, tree.depth + 1 FROM sessions s JOIN tree ON s.spawned_by = tree.id WHERE tree.depth < ${MAX_LINK_DEPTH}
     )
     SELECT tree.pk, s.deleted_at FROM tree JOIN sessions s ON s.pk = tree.pk WHERE depth > 0 AND tree.pk <> @pk GROUP BY tree.pk ORDER BY MAX(depth) DESC, tree.pk`,
  ).all({ pk }) as { pk: number; deleted_at: string | null }[];
}

export function descendantPks(db: Database.Database, pk: number): number[] {
  return descendants(db, pk).map((d) => d.pk);
}
