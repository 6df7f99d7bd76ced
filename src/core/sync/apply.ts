import os from 'node:os';
import type Database from 'better-sqlite3';
import type { ChatMessage, SessionStatus } from '../../shared/types';
import { LoomError } from '../errors';
import type { SessionStore } from '../store/session-store';
import { descendantPks, MAX_LINK_DEPTH } from '../store/children';
import { checkContext, ContextRuleError } from '../store/context-rules';
import { prepared } from '../store/statements';
import { deleteSession } from '../store/repositories/forks';
import { insertRecordOnce, RECORD_TABLES, replaceUsage, type RecordTable } from '../store/repositories/records';
import { insertSession, recountMessages, setSessionColumns, type SessionColumns } from '../store/repositories/sessions';
import { insertEntry, type MessageRow } from '../store/repositories/transcript';
import { readContext } from '../store/transcript-chain';
import { branchOffDivergence, divergenceNote } from './divergence';
import { bodyHash, canonicalJson, type HubBody, type HubSession, type RecordKind, type SessionState } from './hub-rows';
import { localBody, readSession } from './outbox';
import { bodyProblem, recordProblem, sessionStateProblem } from './pulled-rows';
import { observeClock } from './sync-state';

/** A session row as the hub holds it (state is '{}' on a tombstone). */
export interface RemoteSession extends HubSession {
  deleted_hlc: number | null;
}

export interface RemoteEntry {
  session_id: string;
  seq: number;
  device_id: string;
  body_hash: string;
  body: HubBody;
}

export interface RemoteRecord {
  session_id: string;
  kind: RecordKind;
  body: Record<string, unknown>;
}

export type RemoteChange = { type: 'session'; session: RemoteSession } | { type: 'entry'; entry: RemoteEntry } | { type: 'record'; record: RemoteRecord };

export interface ApplyCounts {
  sessions: Set<string>;
  messages: number;
  branches: number;
  deletes: number;
  /** Rows skipped as malformed (pulled-rows.ts), each named: `message 3 of session …: its role "wizard" is not one Loom knows`. */
  skipped: string[];
}

export interface ApplyContext {
  deviceLabel: string;
  /** Another device's label, for a divergence note. */
  labelOf: (deviceId: string) => string;
  /** This process is using the session (its engine mid-turn): its changes wait in the inbox. */
  isBusy?: (sessionId: string) => boolean;
}

export function emptyCounts(): ApplyCounts {
  return { sessions: new Set(), messages: 0, branches: 0, deletes: 0, skipped: [] };
}

/**
 * Applies pulled changes (docs/DESIGN.md#sync-through-a-hub) in one local transaction with
 * sync_applying set, so the outbox triggers do not queue them again. A session another
 * live process holds (its lease), or one with changes already waiting, is not touched:
 * its changes wait in sync_inbox, in order, for a later sync.
 */
export function applyChanges(store: SessionStore, changes: RemoteChange[], context: ApplyContext, counts: ApplyCounts): void {
  const db = store.db;
  const bySession = new Map<string, RemoteChange[]>();
  for (const change of changes) {
    const id = sessionIdOf(change);
    bySession.set(id, [...(bySession.get(id) ?? []), change]);
  }
  store.batch(() => {
    prepared(db, 'INSERT OR IGNORE INTO sync_applying (one) VALUES (1)').run();
    for (const [id, group] of bySession) {
      const waiting = prepared(db, 'SELECT 1 FROM sync_inbox WHERE session_id = ? LIMIT 1').get(id) !== undefined;
      if (waiting || !applyIfFree(store, id, group, context, counts)) defer(db, id, group);
    }
    prepared(db, 'DELETE FROM sync_applying').run();
  });
}

/** Applies what waits in the inbox for sessions now free; returns the sessions still waiting. */
export function applyInbox(store: SessionStore, context: ApplyContext, counts: ApplyCounts): string[] {
  const db = store.db;
  const ids = (prepared(db, 'SELECT DISTINCT session_id FROM sync_inbox ORDER BY session_id').all() as { session_id: string }[]).map((r) => r.session_id);
  store.batch(() => {
    prepared(db, 'INSERT OR IGNORE INTO sync_applying (one) VALUES (1)').run();
    for (const id of ids) {
      const rows = prepared(db, 'SELECT change FROM sync_inbox WHERE session_id = ? ORDER BY id').all(id) as { change: string }[];
      const group = rows.map((r) => JSON.parse(r.change) as RemoteChange);
      if (applyIfFree(store, id, group, context, counts)) prepared(db, 'DELETE FROM sync_inbox WHERE session_id = ?').run(id);
    }
    prepared(db, 'DELETE FROM sync_applying').run();
  });
  return waitingSessions(db);
}

export function waitingSessions(db: Database.Database): string[] {
  return (prepared(db, 'SELECT DISTINCT session_id FROM sync_inbox ORDER BY session_id').all() as { session_id: string }[]).map((r) => r.session_id);
}

function sessionIdOf(change: RemoteChange): string {
  if (change.type === 'session') return change.session.id;
  return change.type === 'entry' ? change.entry.session_id : change.record.session_id;
}

/** The session's lease is held by this very process (its engine, through another connection). */
function leasedHere(db: Database.Database, id: string): boolean {
  const row = prepared(db, 'SELECT l.pid, l.hostname FROM leases l JOIN sessions s ON s.pk = l.session_pk WHERE s.id = ?').get(id) as
    { pid: number; hostname: string } | undefined;
  return row?.pid === process.pid && row.hostname === os.hostname();
}

function defer(db: Database.Database, id: string, group: RemoteChange[]): void {
  const insert = prepared(db, 'INSERT INTO sync_inbox (session_id, change) VALUES (?, ?)');
  for (const change of group) insert.run(id, JSON.stringify(change));
}

function localPk(db: Database.Database, id: string): number | undefined {
  return (prepared(db, 'SELECT pk FROM sessions WHERE id = ?').get(id) as { pk: number } | undefined)?.pk;
}

/** False when the session is in use (another process's lease, or this process's engine). */
function applyIfFree(store: SessionStore, id: string, group: RemoteChange[], context: ApplyContext, counts: ApplyCounts): boolean {
  if (localPk(store.db, id) === undefined) {
    applyGroup(store.db, id, group, context, counts);
    return true;
  }
  if (context.isBusy?.(id)) return false;
  // A caller that speaks for this process's engine (isBusy) has said it is between turns: its lease does not hold the
  // session (the engine reads it again when its change watcher sees the commit). Other processes' leases do.
  if (context.isBusy && leasedHere(store.db, id)) {
    applyGroup(store.db, id, group, context, counts);
    return true;
  }
  try {
    store.whileFree(id, () => applyGroup(store.db, id, group, context, counts));
    return true;
  } catch (err) {
    if (err instanceof LoomError && err.code === 'session_in_use') return false;
    throw err;
  }
}

/** A group of pulled rows that would leave its session's working context breaking the chat rules. */
class BreaksChatRules extends Error {}

/**
 * Applies a session's pulled rows unless, together, they break the chat rules an import's
 * context obeys (store/context-rules.ts), in which case none of them is applied and the
 * group is named as skipped: a resume would send that context to the model. Only a
 * context that was valid before is held to it, so a session already broken on this
 * device does not stop its later changes.
 */
function applyGroup(db: Database.Database, id: string, group: RemoteChange[], context: ApplyContext, counts: ApplyCounts): void {
  const touchesContext = group.some((change) => change.type !== 'session');
  const wasValid = !touchesContext || contextProblem(db, id) === null;
  const before = { ...counts, sessions: new Set(counts.sessions), skipped: [...counts.skipped] };
  try {
    db.transaction(() => {
      applyRows(db, id, group, context, counts);
      const problem = wasValid && touchesContext ? contextProblem(db, id) : null;
      if (problem) throw new BreaksChatRules(`${describeRows(id, group)}: they would break the chat rules (${problem})`);
    })();
  } catch (err) {
    if (!(err instanceof BreaksChatRules)) throw err;
    Object.assign(counts, before, { skipped: [...before.skipped, err.message] });
  }
}

/** What breaks the chat rules in the session's working context, or null (also when the session is not here). */
function contextProblem(db: Database.Database, id: string): string | null {
  const pk = localPk(db, id);
  if (pk === undefined) return null;
  const messages = readContext(db, pk);
  try {
    const { closedCalls } = checkContext(messages);
    // Calls left open at the very end are a turn still running on its device (resume closes them); anywhere else, a gap.
    return closedCalls > openCallsAtEnd(messages) ? 'a tool call without its result, before later messages' : null;
  } catch (err) {
    if (err instanceof ContextRuleError) return err.message;
    throw err;
  }
}

/** The calls of the last assistant message that no tool message after it answers, when only tool messages follow it. */
function openCallsAtEnd(messages: readonly ChatMessage[]): number {
  let i = messages.length - 1;
  while (messages[i]?.role === 'tool') i--; // stops before the start: messages[-1] is undefined
  const last = messages.at(i);
  if (last?.role !== 'assistant' || !last.tool_calls) return 0;
  const answered = new Set(messages.slice(i + 1).map((m) => (m.role === 'tool' ? m.tool_call_id : '')));
  return last.tool_calls.filter((call) => !answered.has(call.id)).length;
}

function describeRows(id: string, group: RemoteChange[]): string {
  const seqs = group.flatMap((change) => (change.type === 'entry' ? [change.entry.seq] : []));
  const messages = seqs.length === 0 ? '' : seqs.length === 1 ? `message ${seqs[0]}` : `messages ${Math.min(...seqs)}–${Math.max(...seqs)}`;
  const records = group.filter((change) => change.type === 'record').length;
  const parts = [messages, records ? `${records} record${records === 1 ? '' : 's'}` : ''].filter(Boolean);
  return `${parts.join(' and ')} of session ${id}`;
}

function applyRows(db: Database.Database, id: string, group: RemoteChange[], context: ApplyContext, counts: ApplyCounts): void {
  for (const change of group) {
    const problem = changeProblem(change) ?? (change.type === 'session' ? linkCycleProblem(db, change.session) : null);
    if (problem) counts.skipped.push(problem);
    else if (change.type === 'session') applySession(db, change.session, counts);
    else if (change.type === 'entry') applyEntry(db, change.entry, context, counts);
    else applyRecord(db, change.record);
  }
  const pk = localPk(db, id);
  if (pk !== undefined) recountMessages(db, pk);
}

/**
 * What is wrong with a pulled row, naming it, or null: a teammate wrote it, so it is read
 * like an import (pulled-rows.ts). A malformed row is skipped, never applied in part, and
 * the rest of the pull goes on.
 */
function changeProblem(change: RemoteChange): string | null {
  const named = (what: string, problem: string | null) => problem && `${what}: ${problem}`;
  switch (change.type) {
    case 'session': {
      const s = change.session;
      if (s.deleted_hlc !== null) return null;
      return named(`session ${s.id}`, s.title !== null && s.title.length > MAX_TITLE_CHARS ? 'its title is too long' : sessionStateProblem(s.id, s.state));
    }
    case 'entry': {
      const e = change.entry;
      return named(`message ${e.seq} of session ${e.session_id}`, e.seq >= 0 ? bodyProblem(e.body) : 'its position is negative');
    }
    case 'record':
      return named(
        `${article(change.record.kind)} ${change.record.kind} record of session ${change.record.session_id}`,
        recordProblem(change.record.kind, change.record.body),
      );
  }
}

const MAX_TITLE_CHARS = 100_000;

const article = (word: string) => (/^[aeiou]/i.test(word) ? 'an' : 'a');

/**
 * A pulled link that would make a session a sub-agent of its own sub-agent (directly or
 * further down, as the links stand here): the row is skipped. Which checks a single row
 * cannot make, since the loop takes two rows, maybe pulled apart.
 */
function linkCycleProblem(db: Database.Database, remote: RemoteSession): string | null {
  const parent = remote.deleted_hlc === null ? remote.state.spawned_by : null;
  if (!parent) return null;
  const loops = prepared(
    db,
    `WITH RECURSIVE up (id, depth) AS (
       SELECT ?, 0
       UNION SELECT s.spawned_by, up.depth + 1 FROM sessions s JOIN up ON s.id = up.id WHERE s.spawned_by IS NOT NULL AND up.depth < ${MAX_LINK_DEPTH}
     ) SELECT 1 FROM up WHERE id = ? LIMIT 1`,
  ).get(parent, remote.id);
  return loops ? `session ${remote.id}: its sub-agent link makes a cycle` : null;
}

const FIELDS = ['title', 'archived', 'state'] as const;
type Field = (typeof FIELDS)[number];
const USER_FIELDS = ['title', 'archived'] as const;
type LocalClocks = Record<`${Field}_hlc` | `${Field}_synced`, number>;
const NO_CLOCKS: LocalClocks = { title_hlc: 0, archived_hlc: 0, state_hlc: 0, title_synced: 0, archived_synced: 0, state_synced: 0 };

function applySession(db: Database.Database, remote: RemoteSession, counts: ApplyCounts): void {
  const pk = localPk(db, remote.id);
  if (remote.deleted_hlc !== null) {
    if (pk === undefined) return;
    counts.deletes += deleteLocally(db, pk);
    counts.sessions.add(remote.id);
    return;
  }
  observeClock(db, Math.max(remote.title_hlc, remote.archived_hlc, remote.state_hlc));
  if (pk === undefined) {
    createLocally(db, remote);
    counts.sessions.add(remote.id);
    return;
  }
  const local = (prepared(db, 'SELECT * FROM sync_clocks WHERE session_id = ?').get(remote.id) as LocalClocks | undefined) ?? NO_CLOCKS;
  queueLostValues(db, remote, local);
  let changed = false;
  if (remote.title_hlc > local.title_hlc) {
    setSessionColumns(db, pk, { title: remote.title });
    changed = true;
  }
  if (remote.archived_hlc > local.archived_hlc) {
    setSessionColumns(db, pk, { archived: remote.archived ? 1 : 0 });
    changed = true;
  }
  if (remote.state_hlc > local.state_hlc) {
    writeState(db, pk, remote.state);
    changed = true;
  }
  writeClocks(db, remote.id, remote, local);
  if (changed) counts.sessions.add(remote.id);
}

/**
 * A title or archive flag changed both here (a stamp the hub has not seen) and on the hub
 * (a stamp this device has not seen) to different values: the later stamp wins, and the
 * other value is queued for loom.conflicts, so a user's edit is never silently gone. (The
 * state moves with every turn: its races are bookkeeping, not kept.)
 */
function queueLostValues(db: Database.Database, remote: RemoteSession, local: LocalClocks): void {
  const raced = USER_FIELDS.filter(
    (f) => local[`${f}_hlc`] > local[`${f}_synced`] && remote[`${f}_hlc`] > local[`${f}_synced`] && remote[`${f}_hlc`] !== local[`${f}_hlc`],
  );
  const mine = raced.length > 0 ? readSession(db, remote.id) : undefined;
  if (!mine) return;
  for (const field of raced) {
    if (canonicalJson(remote[field]) === canonicalJson(mine[field])) continue;
    const loser = remote[`${field}_hlc`] < local[`${field}_hlc`] ? remote : mine;
    prepared(db, `INSERT INTO sync_outbox (kind, session_id, hlc, fields) VALUES ('conflict', ?, ?, ?)`).run(
      remote.id,
      loser[`${field}_hlc`],
      JSON.stringify({ field, value: loser[field] }),
    );
  }
}

/** Each field keeps the later stamp; the hub's stamps are now seen here. */
function writeClocks(db: Database.Database, id: string, remote: HubSession, local: LocalClocks): void {
  prepared(
    db,
    `INSERT OR REPLACE INTO sync_clocks (session_id, title_hlc, archived_hlc, state_hlc, title_synced, archived_synced, state_synced) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(id, ...FIELDS.map((f) => Math.max(remote[`${f}_hlc`], local[`${f}_hlc`])), ...FIELDS.map((f) => Math.max(remote[`${f}_hlc`], local[`${f}_synced`])));
}

/** After a hub commit took these sessions: the values pushed are the hub's (or older than its own). */
export function markSessionsSynced(db: Database.Database, sessions: readonly HubSession[]): void {
  const update = prepared(
    db,
    `UPDATE sync_clocks SET title_synced = MAX(title_synced, ?), archived_synced = MAX(archived_synced, ?), state_synced = MAX(state_synced, ?) WHERE session_id = ?`,
  );
  db.transaction(() => {
    for (const s of sessions) update.run(s.title_hlc, s.archived_hlc, s.state_hlc, s.id);
  })();
}

/** A fork whose parent this device cannot see (not shared with it) stands alone, with the rows it can read. */
function forkParentPk(db: Database.Database, state: SessionState): number | null {
  return state.fork_parent_id === null ? null : (localPk(db, state.fork_parent_id) ?? null);
}

/** The row with what only a new session sets (title, archive flag, its inherited length), then the state as on any update. */
function createLocally(db: Database.Database, remote: RemoteSession): void {
  const s = remote.state;
  const inherited = forkParentPk(db, s) === null ? 0 : s.fork_at;
  const pk = insertSession(db, {
    id: remote.id,
    parent_id: null,
    title: remote.title,
    summary: null,
    status: 'saved',
    archived: remote.archived ? 1 : 0,
    created_at: s.created_at,
    updated_at: s.updated_at,
    message_count: inherited,
    model: null,
    cwd: null,
    // A folder is chosen on each device: the hub never names one to work in; so is a pin on its sidebar.
    project_dir: null,
    pinned: 0,
    agent: null,
    plan: s.plan,
  });
  writeState(db, pk, s);
  writeClocks(db, remote.id, remote, NO_CLOCKS);
}

function writeState(db: Database.Database, pk: number, s: SessionState): void {
  const parentPk = forkParentPk(db, s);
  setSessionColumns(db, pk, {
    parent_id: s.parent_id,
    summary: s.summary,
    // Checked by sessionStateProblem (pulled-rows.ts) before it got here.
    status: s.status === 'active' ? 'saved' : (s.status as SessionStatus),
    created_at: s.created_at,
    updated_at: s.updated_at,
    model: s.model,
    cwd: s.cwd,
    plan: s.plan,
    fork_parent_pk: parentPk,
    fork_at: parentPk === null ? 0 : s.fork_at,
    note: s.note,
    ...agentAndLink(s),
  });
  replaceUsage(db, pk, s.usage);
}

/**
 * The agent and the sub-agent link as a pulled state sets them (checked by pulled-rows.ts
 * when present). A state an older Loom pushed has none of these fields: what is here is
 * kept, so a device that never knew of links cannot unlink a child by winning last
 * writer wins; an explicit null still clears. The link's four fields go as one.
 */
function agentAndLink(s: SessionState): Partial<SessionColumns> {
  const partial: Partial<SessionState> = s;
  const columns: Partial<SessionColumns> = {};
  if (partial.agent !== undefined) columns.agent = partial.agent;
  const link = [partial.spawned_by, partial.spawn_call_id, partial.spawn_agent, partial.child_state];
  if (link.some((value) => value !== undefined)) {
    Object.assign(columns, {
      spawned_by: s.spawned_by ?? null,
      spawn_call_id: s.spawn_call_id ?? null,
      spawn_agent: s.spawn_agent ?? null,
      child_state: s.child_state ?? null,
    });
  }
  return columns;
}

/**
 * As SessionStore.delete, its sub-agents with it (those here the deleting device never saw
 * too), with the triggers on: each delete queues its tombstone, and forks that took over
 * rows queue them (the hub may not have them). Returns how many sessions went.
 */
function deleteLocally(db: Database.Database, pk: number): number {
  prepared(db, 'DELETE FROM sync_applying').run();
  const gone = [...descendantPks(db, pk), pk];
  for (const each of gone) deleteSession(db, each);
  prepared(db, 'INSERT OR IGNORE INTO sync_applying (one) VALUES (1)').run();
  return gone.length;
}

function applyEntry(db: Database.Database, entry: RemoteEntry, context: ApplyContext, counts: ApplyCounts): void {
  const pk = localPk(db, entry.session_id);
  if (pk === undefined) return;
  const mine = localBody(db, pk, entry.seq);
  if (mine && bodyHash(mine) === entry.body_hash) return;
  if (mine) {
    prepared(db, 'DELETE FROM sync_applying').run();
    branchOffDivergence(db, pk, entry.seq, divergenceNote(context.deviceLabel, context.labelOf(entry.device_id)));
    prepared(db, 'INSERT OR IGNORE INTO sync_applying (one) VALUES (1)').run();
    counts.branches += 1;
  }
  const b = entry.body;
  insertEntry(db, pk, entry.seq, { ...b, role: b.role as MessageRow['role'], stopped: b.stopped ? 1 : 0 });
  counts.messages += 1;
  counts.sessions.add(entry.session_id);
}

/** The hub's data never names a column of its own: a record is written as the columns its kind has here. */
function applyRecord(db: Database.Database, record: RemoteRecord): void {
  const pk = localPk(db, record.session_id);
  const shape = RECORD_TABLES[record.kind] as RecordTable | undefined;
  if (pk !== undefined && shape) insertRecordOnce(db, shape, pk, record.body);
}
