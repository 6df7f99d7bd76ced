import type Database from 'better-sqlite3';
import { prepared } from '../store/statements';
import { bodyHash, redactDeep, type HubBody, type HubEntry, type HubRecord, type HubSession, type SessionState, type UsageRow } from './hub-rows';
import { RECORD_TABLES } from './sync-state';

/**
 * The outbox (docs/DESIGN.md#sync-through-a-hub) turned into hub rows: a batch is a run of
 * outbox rows in seq order, read as they are now (a session's latest title, state and
 * clocks; a message's redacted body). A row whose subject is gone (a message of a session
 * deleted since) carries nothing but still counts: its seq is pushed all the same.
 */
export interface OutboxBatch {
  /** The last outbox seq the batch covers: the device's last_seq on the hub once pushed. */
  lastSeq: number;
  sessions: HubSession[];
  entries: (HubEntry & { body: HubBody })[];
  records: HubRecord[];
  tombstones: { session_id: string; hlc: number }[];
  shares: { session_id: string; team: string }[];
  /** Hub values that lost here to a newer local change (apply.ts), for loom.conflicts. */
  conflicts: LostValue[];
}

export interface LostValue {
  session_id: string;
  field: 'title' | 'archived' | 'state';
  value: unknown;
  hlc: number;
}

interface OutboxRow {
  seq: number;
  kind: 'entry' | 'meta' | 'record' | 'tombstone' | 'share' | 'conflict';
  session_id: string;
  ref: number | null;
  hlc: number;
  fields: string | null;
}

/**
 * Up to `limit` outbox rows after `afterSeq`, or undefined when none are left. The batch
 * stops before the first row of a session whose pulled changes wait in the inbox: what
 * was written here may diverge from them, and only applying them (once the session is
 * free) can tell, and branch it off, so it is pushed after that.
 */
export function readBatch(db: Database.Database, afterSeq: number, limit: number): OutboxBatch | undefined {
  return db.transaction(() => {
    const rows = prepared(
      db,
      `SELECT seq, kind, session_id, ref, hlc, fields FROM sync_outbox
        WHERE seq > @after AND seq < COALESCE((SELECT MIN(seq) FROM sync_outbox WHERE seq > @after AND session_id IN (SELECT session_id FROM sync_inbox)), @end)
        ORDER BY seq LIMIT @limit`,
    ).all({ after: afterSeq, limit, end: Number.MAX_SAFE_INTEGER }) as OutboxRow[];
    const last = rows.at(-1);
    if (last === undefined) return undefined;
    const batch: OutboxBatch = { lastSeq: last.seq, sessions: [], entries: [], records: [], tombstones: [], shares: [], conflicts: [] };
    // Every session the batch touches goes with it, so its rows never reach the hub before it.
    const sessionIds = new Set<string>();
    for (const row of rows) {
      if (row.kind !== 'tombstone') sessionIds.add(row.session_id);
      if (row.kind === 'entry') pushDefined(batch.entries, readEntry(db, row));
      else if (row.kind === 'record') pushDefined(batch.records, readRecord(db, row));
      else if (row.kind === 'tombstone') batch.tombstones.push({ session_id: row.session_id, hlc: row.hlc });
      else if (row.kind === 'share' && row.fields) batch.shares.push({ session_id: row.session_id, team: row.fields });
      else if (row.kind === 'conflict' && row.fields)
        batch.conflicts.push({ session_id: row.session_id, hlc: row.hlc, ...(JSON.parse(row.fields) as Pick<LostValue, 'field' | 'value'>) });
    }
    for (const id of sessionIds) pushDefined(batch.sessions, readSession(db, id));
    return batch;
  })();
}

function pushDefined<T>(list: T[], item: T | undefined): void {
  if (item !== undefined) list.push(item);
}

/**
 * The hub's device row says it holds the outbox up to `seq`: those rows go. A hub that
 * lost commits it had acknowledged (a crash without synchronous commit) says less than
 * `pushed`, and the rows it lost, still here, are sent again.
 */
export function confirmPushed(db: Database.Database, seq: number): void {
  prepared(db, 'DELETE FROM sync_outbox WHERE seq <= ?').run(seq);
  prepared(db, 'UPDATE sync_state SET pushed = ?').run(seq);
}

/** A hub commit took the outbox up to `seq` (deleted once confirmed, above). */
export function markPushed(db: Database.Database, seq: number): void {
  prepared(db, 'UPDATE sync_state SET pushed = MAX(pushed, ?)').run(seq);
}

interface MessageRow extends Omit<HubBody, 'stopped'> {
  stopped: number;
}

const BODY_COLUMNS = 'm.role, m.content, m.tool_calls, m.tool_call_id, m.tool_text, m.images, m.facts, m.stopped';

/** The body the hub keeps for a local message row: redacted, in a fixed shape. */
function hubBody(row: MessageRow): HubBody {
  return redactDeep({
    role: row.role,
    content: row.content,
    tool_calls: row.tool_calls,
    tool_call_id: row.tool_call_id,
    tool_text: row.tool_text,
    images: row.images,
    facts: row.facts,
    stopped: row.stopped,
  });
}

/** The local message at (session, seq) as the hub would hold it, if there is one in the session's own rows. */
export function localBody(db: Database.Database, sessionPk: number, seq: number): HubBody | undefined {
  const row = prepared(db, `SELECT ${BODY_COLUMNS} FROM transcript t JOIN messages m ON m.id = t.message_id WHERE t.session_pk = ? AND t.seq = ?`).get(
    sessionPk,
    seq,
  ) as MessageRow | undefined;
  return row && hubBody(row);
}

function readEntry(db: Database.Database, row: OutboxRow): (HubEntry & { body: HubBody }) | undefined {
  const message = prepared(
    db,
    `SELECT ${BODY_COLUMNS} FROM sessions s JOIN transcript t ON t.session_pk = s.pk JOIN messages m ON m.id = t.message_id WHERE s.id = ? AND t.seq = ?`,
  ).get(row.session_id, row.ref) as MessageRow | undefined;
  if (!message) return undefined;
  const body = hubBody(message);
  return { session_id: row.session_id, seq: row.ref ?? 0, body_hash: bodyHash(body), device_seq: row.seq, body };
}

function readRecord(db: Database.Database, row: OutboxRow): HubRecord | undefined {
  const table = row.fields as keyof typeof RECORD_TABLES | null;
  if (!table || !(table in RECORD_TABLES)) return undefined;
  // The session is read from the record itself: a divergence may have moved it to a branch since.
  const record = prepared(db, `SELECT s.id AS session_id, r.* FROM ${table} r JOIN sessions s ON s.pk = r.session_pk WHERE r.id = ?`).get(row.ref) as
    (Record<string, unknown> & { session_id: string }) | undefined;
  if (!record) return undefined;
  const { session_id: sessionId, id: _id, session_pk: _pk, ...body } = record;
  return { session_id: sessionId, device_seq: row.seq, kind: RECORD_TABLES[table], body: redactDeep(body) };
}

/** The session's columns as read here: the state's fields (all but usage, read apart), its id, title, archive flag and clocks. */
interface SessionRow extends Omit<SessionState, 'usage'> {
  pk: number;
  id: string;
  title: string | null;
  archived: number;
  title_hlc: number | null;
  archived_hlc: number | null;
  state_hlc: number | null;
}

/** A session as it is now, with its fields' clocks; undefined once it is deleted. */
export function readSession(db: Database.Database, id: string): HubSession | undefined {
  const row = prepared(
    db,
    `SELECT s.pk, s.id, s.parent_id, s.title, s.summary, s.status, s.archived, s.created_at, s.updated_at, s.model, s.cwd, s.plan,
            p.id AS fork_parent_id, s.fork_at, s.note, s.agent, s.spawned_by, s.spawn_call_id, s.spawn_agent, s.child_state, c.title_hlc, c.archived_hlc, c.state_hlc
       FROM sessions s LEFT JOIN sessions p ON p.pk = s.fork_parent_pk LEFT JOIN sync_clocks c ON c.session_id = s.id WHERE s.id = ?`,
  ).get(id) as SessionRow | undefined;
  if (!row) return undefined;
  const usage = prepared(db, 'SELECT kind, calls, prompt_tokens, completion_tokens, cost_usd FROM usage WHERE session_pk = ? ORDER BY kind').all(
    row.pk,
  ) as UsageRow[];
  const state: SessionState = {
    parent_id: row.parent_id,
    summary: row.summary,
    status: row.status,
    created_at: row.created_at,
    updated_at: row.updated_at,
    model: row.model,
    cwd: row.cwd,
    plan: row.plan,
    fork_parent_id: row.fork_parent_id,
    fork_at: row.fork_at,
    note: row.note,
    agent: row.agent,
    spawned_by: row.spawned_by,
    spawn_call_id: row.spawn_call_id,
    spawn_agent: row.spawn_agent,
    child_state: row.child_state,
    usage,
  };
  return redactDeep({
    id: row.id,
    title: row.title,
    title_hlc: row.title_hlc ?? 0,
    archived: row.archived === 1,
    archived_hlc: row.archived_hlc ?? 0,
    state,
    state_hlc: row.state_hlc ?? 0,
  });
}
