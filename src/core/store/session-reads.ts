/**
 * SessionStore's reads: an id to its row, a prefix to an id, one session's metadata,
 * plan and whole record, the list in its order and by pages, and where a transcript
 * message sits in the working context. Each throws the LoomError of an unknown session.
 */
import type Database from 'better-sqlite3';
import type { PlanState, SessionCursor, SessionMeta, SessionPage, SessionRecord } from '../../shared/types';
import { LoomError } from '../errors';
import { TOP_LEVEL, childCounts } from './children';
import { familyPage } from './families';
import type { TreeFields } from './export';
import { listAgentChanges, listCompactions, listModelChanges, readUsage } from './repositories/records';
import { META_COLUMNS, metaFromRow, type MetaRow } from './rows';
import { prepared } from './statements';
import { LIVE } from './trash';
import { currentStart, nonSystemCountFrom, readContext, readTranscript, readTranscriptFacts } from './transcript-chain';

function unknownSession(id: string): LoomError {
  return new LoomError(`No session with id "${id}".`, 'unknown_session');
}

export function pkOf(db: Database.Database, id: string): number {
  const row = prepared(db, `SELECT pk FROM sessions s WHERE s.id = ? AND ${LIVE}`).get(id) as { pk: number } | undefined;
  if (!row) throw unknownSession(id);
  return row.pk;
}

/** Whether the session is there: neither in the Trash nor purged. */
export function isLive(db: Database.Database, id: string): boolean {
  return prepared(db, `SELECT 1 FROM sessions s WHERE s.id = ? AND ${LIVE}`).get(id) !== undefined;
}

/** A unique id prefix (or a full id) to the full id. */
export function resolveId(db: Database.Database, idOrPrefix: string): string {
  const prefix = idOrPrefix.trim();
  if (!prefix) throw new LoomError('No session id given.', 'unknown_session');
  if (isLive(db, prefix)) return prefix;
  const rows = prepared(db, `SELECT id FROM sessions s WHERE s.id >= ? AND s.id < ? AND ${LIVE} ORDER BY s.id LIMIT 2`).all(prefix, `${prefix}\uffff`) as {
    id: string;
  }[];
  const [only] = rows;
  if (only === undefined) throw new LoomError(`No session matches "${prefix}".`, 'unknown_session');
  if (rows.length > 1) throw new LoomError(`Session id "${prefix}" is ambiguous; give more characters.`, 'ambiguous_session');
  return only.id;
}

export function readMeta(db: Database.Database, id: string): SessionMeta {
  const row = prepared(db, `SELECT ${META_COLUMNS} FROM sessions s WHERE s.id = ? AND ${LIVE}`).get(id) as MetaRow | undefined;
  if (!row) throw unknownSession(id);
  return metaFromRow(row);
}

export function readPlan(db: Database.Database, id: string): PlanState {
  const row = prepared(db, `SELECT plan FROM sessions s WHERE s.id = ? AND ${LIVE}`).get(id) as { plan: string } | undefined;
  if (!row) throw unknownSession(id);
  return JSON.parse(row.plan) as PlanState;
}

/** The whole record of session `id`; the caller reads it from one snapshot (a transaction). */
export function readRecord(db: Database.Database, id: string): SessionRecord {
  const pk = pkOf(db, id);
  return {
    ...readMeta(db, id),
    messages: readContext(db, pk),
    transcript: readTranscript(db, pk),
    compactions: listCompactions(db, pk),
    plan: readPlan(db, id),
    usage: readUsage(db, pk),
    transcript_facts: readTranscriptFacts(db, pk),
    model_changes: listModelChanges(db, pk),
    agent_changes: listAgentChanges(db, pk),
  };
}

export interface ListOptions {
  includeArchived?: boolean;
  limit?: number;
  after?: SessionCursor;
  /** Only the sessions of this project folder (the sidebar's filter). */
  project?: string;
  /** Sub-agents' sessions too (docs/DESIGN.md#sub-agents); left out by default. */
  includeChildren?: boolean;
  /** Only the pinned sessions (true) or only the others (false); both when absent. */
  pinned?: boolean;
}

/** The condition (on alias `s`) of a session `opts` lists, and its parameters. */
function listedBy(opts: ListOptions): { condition: string; params: Record<string, unknown> } {
  const conditions = [
    LIVE,
    ...(opts.project === undefined ? [] : ['s.project_dir = @project']),
    ...(opts.includeArchived ? [] : ['s.archived = 0']),
    ...(opts.includeChildren ? [] : [TOP_LEVEL]),
    // Written out, not a parameter: the pinned ones are read from their partial index.
    ...(opts.pinned === undefined ? [] : [`s.pinned = ${opts.pinned ? 1 : 0}`]),
  ];
  return { condition: conditions.join(' AND '), params: opts.project === undefined ? {} : { project: opts.project } };
}

/**
 * Newest updated first (then by id, so ties keep one order); archived sessions only when
 * asked for; `after`: only the sessions listed after that place (keyset paging).
 */
export function listSessions(db: Database.Database, opts: ListOptions): SessionMeta[] {
  const { condition, params } = listedBy(opts);
  const after = opts.after ? ' AND (s.updated_at, s.id) < (@updated_at, @id)' : '';
  const rows = prepared(db, `SELECT ${META_COLUMNS} FROM sessions s WHERE ${condition}${after} ORDER BY s.updated_at DESC, s.id DESC LIMIT @limit`).all({
    limit: opts.limit ?? -1,
    ...params,
    ...(opts.after && { updated_at: opts.after.updated_at, id: opts.after.id }),
  }) as MetaRow[];
  return rows.map(metaFromRow);
}

/**
 * One page of the sidebar's list: `limit` families after `after` (families.ts), each with
 * all its listed members, and the cursor of the next page; the pinned families come first,
 * all of them on the first page (docs/DESIGN.md#the-sidebar). Pinned sessions first, then
 * newest first: the order the sidebar keeps, folding each family into the row of its first.
 */
export function listPage(db: Database.Database, opts: ListOptions & { limit: number }): SessionPage {
  const { condition, params } = listedBy(opts);
  const page = familyPage(db, condition, params, opts);
  const members = prepared(
    db,
    `SELECT ${META_COLUMNS}, s.family_id FROM sessions s INDEXED BY sessions_by_family WHERE ${condition} AND s.family_id IN (SELECT value FROM json_each(@families))
      ORDER BY s.pinned DESC, s.updated_at DESC, s.id DESC`,
  ).all({ ...params, families: JSON.stringify([...page.pinned, ...page.families]) }) as (MetaRow & { family_id: string })[];
  const sessions = members.map(metaFromRow);
  return {
    sessions,
    families: Object.fromEntries(members.map((row) => [row.id, row.family_id])),
    children: childCounts(
      db,
      sessions.map((s) => s.id),
    ),
    next: page.next,
  };
}

/**
 * Where transcript message `seq` is in the working context: null when it is not there (a
 * compaction summarised it, or it is a system prompt). The context ends with the
 * transcript's non-prompt messages from its start on, so counting those after `seq` says.
 */
export function contextIndexOf(db: Database.Database, pk: number, seq: number): number | null {
  const start = currentStart(db, pk);
  const message = readTranscript(db, pk, seq, 1)[0];
  if (!Number.isInteger(seq) || seq < start.keptFrom || !message || message.role === 'system') return null;
  return readContext(db, pk).length - nonSystemCountFrom(db, pk, seq);
}

/** Export version 2's fork point (the session the first `at` messages are read from) and context start. */
export function treeFields(db: Database.Database, pk: number): TreeFields {
  const fork = prepared(db, `SELECT p.id AS parent_id, s.fork_at AS at FROM sessions s JOIN sessions p ON p.pk = s.fork_parent_pk WHERE s.pk = ?`).get(pk) as
    TreeFields['fork'] | undefined;
  const start = currentStart(db, pk);
  return { fork: fork ?? null, context_start: { kept_from: start.keptFrom, with_system: start.withSystem, head: start.head } };
}

/** The project folders live sessions were chosen for, each with how many sessions it has (archived ones too), by path. */
export function listProjects(db: Database.Database): { path: string; sessions: number }[] {
  return prepared(
    db,
    `SELECT s.project_dir AS path, COUNT(*) AS sessions FROM sessions s WHERE s.project_dir IS NOT NULL AND ${LIVE} GROUP BY s.project_dir ORDER BY s.project_dir`,
  ).all() as { path: string; sessions: number }[];
}
