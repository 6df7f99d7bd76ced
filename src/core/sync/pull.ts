import type pg from 'pg';
import { SESSION_ID_PATTERN } from '../store/session-id';
import type { SessionStore } from '../store/session-store';
import { queryOne } from './hub-connection';
import { applyChanges, type ApplyContext, type ApplyCounts, type RemoteChange, type RemoteEntry, type RemoteRecord, type RemoteSession } from './apply';
import { setCursor, type SyncState } from './sync-state';

/** Rows read from the hub and applied per local transaction. */
const PULL_PAGE = 5_000;

export interface PullOptions {
  deviceLabel: string;
  isBusy?: (sessionId: string) => boolean;
  signal?: AbortSignal;
}

/**
 * Brings the hub's changes since the device's cursor (docs/DESIGN.md#sync-through-a-hub):
 * everything with cursor < hub_seq <= U, U read first (hub_seqs commit in order, so all
 * rows up to U are there), this device's own rows skipped, a session seen for the first
 * time read whole. Pages are applied as they come; the cursor moves to U at the end, so a
 * pull cut short is read again (entries and records are applied once whatever repeats).
 */
export async function pullHub(client: pg.Client, store: SessionStore, state: SyncState, options: PullOptions, counts: ApplyCounts): Promise<void> {
  const { seq } = await queryOne<{ seq: string }>(client, 'SELECT seq FROM loom.clock WHERE id = 1');
  const upTo = Number(seq);
  if (upTo <= state.cursor) return;
  const context: ApplyContext = { deviceLabel: options.deviceLabel, labelOf: await deviceLabels(client), isBusy: options.isBusy };
  const sessions = await readSessions(client, state.cursor, upTo);
  const exists = store.db.prepare('SELECT 1 FROM sessions WHERE id = ?');
  const fresh = sessions.filter((s) => s.deleted_hlc === null && exists.get(s.id) === undefined).map((s) => s.id);
  applyChanges(
    store,
    parentsFirst(sessions).map((session) => ({ type: 'session', session })),
    context,
    counts,
  );
  const range = { cursor: state.cursor, upTo, deviceId: state.device_id, fresh };
  for await (const page of readEntryPages(client, range)) {
    options.signal?.throwIfAborted();
    applyChanges(store, page, context, counts);
  }
  applyChanges(store, await readRecords(client, range), context, counts);
  setCursor(store.db, upTo);
}

interface Range {
  cursor: number;
  upTo: number;
  deviceId: string;
  /** Sessions new to this device: all their rows, whatever their hub_seq. */
  fresh: string[];
}

/** How the hub names the user's devices (a teammate's are not readable: "another device"). */
export async function deviceLabels(client: pg.Client): Promise<(deviceId: string) => string> {
  const { rows } = await client.query<{ device_id: string; label: string }>('SELECT device_id, label FROM loom.devices');
  const labels = new Map(rows.map((r) => [r.device_id, r.label]));
  return (deviceId) => labels.get(deviceId) ?? 'another device';
}

interface SessionRow extends Omit<RemoteSession, 'title_hlc' | 'archived_hlc' | 'state_hlc' | 'deleted_hlc'> {
  foreign_parent: boolean;
  title_hlc: string;
  archived_hlc: string;
  state_hlc: string;
  deleted_hlc: string | null;
}

/**
 * Whether the session's sub-agent link names a session of another owner. A sub-agent counts
 * in its parent's cost and goes with its delete, so a link across owners (a teammate's
 * session put under the reader's own) is dropped: the session arrives as one of its own.
 * The uuid is cast only once it reads as one, so a teammate's text cannot fail the query.
 */
const FOREIGN_PARENT = `CASE WHEN s.state->>'spawned_by' ~* '${SESSION_ID_PATTERN.source}'
  THEN EXISTS (SELECT 1 FROM loom.sessions p WHERE p.id = (s.state->>'spawned_by')::uuid AND p.owner <> s.owner) ELSE false END`;

/** The state without its sub-agent link: the session arrives as one of its own. */
const unlinked = (state: SessionRow['state']) => ({ ...state, spawned_by: null, spawn_call_id: null, spawn_agent: null, child_state: null });

async function readSessions(client: pg.Client, cursor: number, upTo: number): Promise<RemoteSession[]> {
  const { rows } = await client.query<SessionRow>(
    `SELECT s.id, s.title, s.title_hlc, s.archived, s.archived_hlc, s.state, s.state_hlc, s.deleted_hlc, ${FOREIGN_PARENT} AS foreign_parent
       FROM loom.sessions s WHERE s.hub_seq > $1 AND s.hub_seq <= $2 ORDER BY s.hub_seq, s.id`,
    [cursor, upTo],
  );
  return rows.map(({ foreign_parent: foreignParent, ...r }) => ({
    ...r,
    state: foreignParent ? unlinked(r.state) : r.state,
    title_hlc: Number(r.title_hlc),
    archived_hlc: Number(r.archived_hlc),
    state_hlc: Number(r.state_hlc),
    deleted_hlc: r.deleted_hlc === null ? null : Number(r.deleted_hlc),
  }));
}

/** A fork is created after the session it forks from. */
function parentsFirst(sessions: RemoteSession[]): RemoteSession[] {
  const byId = new Map(sessions.map((s) => [s.id, s]));
  const out: RemoteSession[] = [];
  const placed = new Set<string>();
  const place = (s: RemoteSession, depth: number) => {
    if (placed.has(s.id)) return;
    // A teammate's state may be any JSON (apply.ts skips a bad one): read its parent without trusting its shape.
    const parent = s.deleted_hlc === null ? byId.get(String((s.state as Partial<RemoteSession['state']> | null)?.fork_parent_id ?? '')) : undefined;
    if (parent && depth < sessions.length) place(parent, depth + 1);
    placed.add(s.id);
    out.push(s);
  };
  for (const s of sessions) place(s, 0);
  return out;
}

const IN_RANGE = `hub_seq <= $2 AND (($1 < hub_seq AND device_id <> $3) OR session_id = ANY($4::uuid[]))`;

async function* readEntryPages(client: pg.Client, range: Range): AsyncGenerator<RemoteChange[]> {
  let after: [string, number] = ['00000000-0000-0000-0000-000000000000', -1];
  for (;;) {
    const { rows } = await client.query<RemoteEntry>(
      `SELECT e.session_id, e.seq, e.device_id, e.body_hash, b.body FROM loom.entries e JOIN loom.bodies b ON b.owner = e.owner AND b.hash = e.body_hash
        WHERE ${IN_RANGE.replaceAll('hub_seq', 'e.hub_seq').replaceAll('device_id', 'e.device_id').replaceAll('session_id', 'e.session_id')}
          AND (e.session_id, e.seq) > ($5::uuid, $6) ORDER BY e.session_id, e.seq LIMIT ${PULL_PAGE}`,
      [range.cursor, range.upTo, range.deviceId, range.fresh, after[0], after[1]],
    );
    const last = rows.at(-1);
    if (last === undefined) return;
    yield rows.map((entry) => ({ type: 'entry', entry }));
    after = [last.session_id, last.seq];
    if (rows.length < PULL_PAGE) return;
  }
}

async function readRecords(client: pg.Client, range: Range): Promise<RemoteChange[]> {
  const { rows } = await client.query<RemoteRecord>(
    `SELECT session_id, kind, body FROM loom.records WHERE ${IN_RANGE} ORDER BY hub_seq, device_id, device_seq`,
    [range.cursor, range.upTo, range.deviceId, range.fresh],
  );
  return rows.map((record) => ({ type: 'record', record }));
}
