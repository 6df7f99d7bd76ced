import type Database from 'better-sqlite3';
import type pg from 'pg';
import { MAX_LINK_DEPTH } from '../store/children';
import { SESSION_ID_PATTERN } from '../store/session-id';
import { markSessionsSynced } from './apply';
import { queryOne } from './hub-connection';
import { confirmPushed, markPushed, readBatch, type OutboxBatch } from './outbox';

/** Outbox rows per hub transaction. */
export const PUSH_BATCH = 2_000;

export interface PushResult {
  sessions: Set<string>;
  messages: number;
  /** The hub holds other messages at positions this device wrote: pull (which branches them off), then push again. */
  diverged: boolean;
  /** Teams a share was queued for that the user is not a member of on the hub: not shared. */
  refusedTeams: Set<string>;
}

export interface PushOptions {
  deviceId: string;
  deviceLabel: string;
  /** Called after each batch the hub committed (the kill -9 test waits on it). */
  afterBatch?: (pushed: number) => void | Promise<void>;
  signal?: AbortSignal;
}

/**
 * Sends the outbox to the hub (docs/DESIGN.md#sync-through-a-hub), one hub transaction per
 * batch: the device row is locked first, and rows up to its last_seq are already there (a
 * push killed after the hub's commit), so they are dropped here and never sent twice; the
 * last batch's rows go when the next transaction (the loop's last) reads its last_seq.
 */
export async function pushOutbox(client: pg.Client, db: Database.Database, options: PushOptions): Promise<PushResult> {
  const result: PushResult = { sessions: new Set(), messages: 0, diverged: false, refusedTeams: new Set() };
  // The next batch, read while the hub works on this one: used when the hub's last_seq says it comes next.
  let ahead: { after: number; batch: OutboxBatch } | undefined;
  for (;;) {
    options.signal?.throwIfAborted();
    await client.query('BEGIN');
    try {
      const lastSeq = await lockDevice(client, options);
      confirmPushed(db, lastSeq);
      const batch = ahead?.after === lastSeq ? ahead.batch : readBatch(db, lastSeq, PUSH_BATCH);
      ahead = undefined;
      if (!batch) {
        await client.query('COMMIT');
        return result;
      }
      const refused = await sendBatch(client, batch, options.deviceId, () => {
        const next = readBatch(db, batch.lastSeq, PUSH_BATCH);
        if (next) ahead = { after: batch.lastSeq, batch: next };
      });
      if (refused === 'diverged') {
        await client.query('ROLLBACK');
        return { ...result, diverged: true };
      }
      await client.query('COMMIT');
      for (const team of refused) result.refusedTeams.add(team);
      markPushed(db, batch.lastSeq);
      markSessionsSynced(db, batch.sessions);
      for (const s of batch.sessions) result.sessions.add(s.id);
      result.messages += batch.entries.length;
      await options.afterBatch?.(result.messages);
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }
}

async function lockDevice(client: pg.Client, { deviceId, deviceLabel }: PushOptions): Promise<number> {
  await client.query(
    'INSERT INTO loom.devices (device_id, label) VALUES ($1, $2) ON CONFLICT (device_id) DO UPDATE SET label = excluded.label, seen_at = now()',
    [deviceId, deviceLabel],
  );
  const { last_seq } = await queryOne<{ last_seq: string }>(client, 'SELECT last_seq FROM loom.devices WHERE device_id = $1 FOR UPDATE', [deviceId]);
  return Number(last_seq);
}

/**
 * One batch into the open hub transaction (`meanwhile` runs while the hub stores its
 * bodies): the teams its shares were refused for, or
 * 'diverged' (the caller rolls back) when an entry's position holds another message there.
 * Rows of sessions another user owns (a teammate's shared session written to here) stay
 * on this device: the hub lets only owners write.
 */
async function sendBatch(client: pg.Client, all: OutboxBatch, deviceId: string, meanwhile: () => void): Promise<string[] | 'diverged'> {
  const batch = await withoutForeignSessions(client, all);
  const { seq: hubSeq } = await queryOne<{ seq: string }>(client, 'UPDATE loom.clock SET seq = seq + 1 WHERE id = 1 RETURNING seq');
  await upsertSessions(client, batch, deviceId, hubSeq);
  await recordLostValues(client, batch, deviceId);
  // The hub computes the bodies' search vectors, the longest part of a batch: the caller reads the next batch meanwhile.
  const bodies = insertBodies(client, batch);
  try {
    meanwhile();
  } finally {
    await bodies;
  }
  if (!(await insertEntries(client, batch, deviceId, hubSeq))) return 'diverged';
  await insertRecords(client, batch, deviceId, hubSeq);
  const shares = await insertShares(client, batch, hubSeq);
  await shareChildren(client, batch, shares.made, hubSeq);
  await applyTombstones(client, batch, hubSeq);
  await client.query('UPDATE loom.devices SET last_seq = $2 WHERE device_id = $1', [deviceId, batch.lastSeq]);
  await client.query(`SELECT pg_notify('loom_changes', $1)`, [hubSeq]);
  return shares.refused;
}

async function withoutForeignSessions(client: pg.Client, batch: OutboxBatch): Promise<OutboxBatch> {
  const ids = [...new Set([...batch.sessions.map((s) => s.id), ...batch.tombstones.map((t) => t.session_id)])];
  const { rows } = await client.query<{ id: string }>('SELECT id FROM loom.sessions WHERE id = ANY($1::uuid[]) AND owner <> current_user', [ids]);
  if (rows.length === 0) return batch;
  const foreign = new Set(rows.map((r) => r.id));
  const mine = <T>(list: T[], id: (item: T) => string) => list.filter((item) => !foreign.has(id(item)));
  return {
    lastSeq: batch.lastSeq,
    sessions: mine(batch.sessions, (s) => s.id),
    entries: mine(batch.entries, (e) => e.session_id),
    records: mine(batch.records, (r) => r.session_id),
    tombstones: mine(batch.tombstones, (t) => t.session_id),
    shares: mine(batch.shares, (s) => s.session_id),
    conflicts: mine(batch.conflicts, (c) => c.session_id),
  };
}

const SESSION_RECORDSET = `jsonb_to_recordset($1::jsonb) AS x(id uuid, title text, title_hlc bigint, archived boolean, archived_hlc bigint, state jsonb, state_hlc bigint)`;

/**
 * Per-field last writer wins by the fields' clocks. A title or archive flag that loses to
 * a later one already on the hub is kept in loom.conflicts (a user's edit is never
 * silently gone; the state, bookkeeping that moves with every turn, is not kept).
 */
async function upsertSessions(client: pg.Client, batch: OutboxBatch, deviceId: string, hubSeq: string): Promise<void> {
  if (batch.sessions.length === 0) return;
  const json = JSON.stringify(batch.sessions);
  await client.query(
    `INSERT INTO loom.conflicts (session_id, field, value, hlc, device_id)
     SELECT x.id, f.field, f.value, f.hlc, $2 FROM ${SESSION_RECORDSET} JOIN loom.sessions s ON s.id = x.id,
       LATERAL (VALUES ('title', to_jsonb(x.title), x.title_hlc, s.title_hlc, to_jsonb(s.title)),
                       ('archived', to_jsonb(x.archived), x.archived_hlc, s.archived_hlc, to_jsonb(s.archived))) AS f(field, value, hlc, hub_hlc, hub_value)
      WHERE s.deleted_hlc IS NULL AND f.hlc < f.hub_hlc AND f.value IS DISTINCT FROM f.hub_value`,
    [json, deviceId],
  );
  await client.query(
    `INSERT INTO loom.sessions AS s (id, parent_id, fork_parent_id, fork_at, created_at, title, title_hlc, archived, archived_hlc, state, state_hlc, note, origin_device, hub_seq)
     SELECT x.id, (x.state->>'parent_id')::uuid, (x.state->>'fork_parent_id')::uuid, (x.state->>'fork_at')::int, x.state->>'created_at',
            x.title, x.title_hlc, x.archived, x.archived_hlc, x.state, x.state_hlc, x.state->>'note', $2, $3
       FROM ${SESSION_RECORDSET}
     ON CONFLICT (id) DO UPDATE SET
       title = CASE WHEN excluded.title_hlc > s.title_hlc THEN excluded.title ELSE s.title END,
       title_hlc = GREATEST(s.title_hlc, excluded.title_hlc),
       archived = CASE WHEN excluded.archived_hlc > s.archived_hlc THEN excluded.archived ELSE s.archived END,
       archived_hlc = GREATEST(s.archived_hlc, excluded.archived_hlc),
       state = CASE WHEN excluded.state_hlc > s.state_hlc THEN excluded.state ELSE s.state END,
       parent_id = CASE WHEN excluded.state_hlc > s.state_hlc THEN excluded.parent_id ELSE s.parent_id END,
       fork_parent_id = CASE WHEN excluded.state_hlc > s.state_hlc THEN excluded.fork_parent_id ELSE s.fork_parent_id END,
       fork_at = CASE WHEN excluded.state_hlc > s.state_hlc THEN excluded.fork_at ELSE s.fork_at END,
       note = COALESCE(s.note, excluded.note),
       state_hlc = GREATEST(s.state_hlc, excluded.state_hlc),
       hub_seq = excluded.hub_seq
     WHERE s.deleted_hlc IS NULL
       AND (excluded.title_hlc > s.title_hlc OR excluded.archived_hlc > s.archived_hlc OR excluded.state_hlc > s.state_hlc OR (s.note IS NULL AND excluded.note IS NOT NULL))`,
    [json, deviceId, hubSeq],
  );
}

/** Hub values this device pulled while it held a newer change of the same field (apply.ts): the hub's value lost, and is kept. */
async function recordLostValues(client: pg.Client, batch: OutboxBatch, deviceId: string): Promise<void> {
  if (batch.conflicts.length === 0) return;
  await client.query(
    `INSERT INTO loom.conflicts (session_id, field, value, hlc, device_id)
     SELECT x.session_id, x.field, x.value, x.hlc, $2 FROM jsonb_to_recordset($1::jsonb) AS x(session_id uuid, field text, value jsonb, hlc bigint)`,
    [JSON.stringify(batch.conflicts), deviceId],
  );
}

/** What the hub's full-text index reads of a body: its text and its tool calls' names and arguments (read from the body, not sent twice). */
const SEARCH_TEXT = `concat_ws(E'\\n', x.body->>'content', x.body->>'tool_text')`;

/**
 * Bodies travel as two parallel text arrays, each body's JSON parsed once into its row
 * (OFFSET 0 keeps that one parse from being inlined into each use), not one JSON
 * document parsed whole and then cut into rows again.
 */
async function insertBodies(client: pg.Client, batch: OutboxBatch): Promise<void> {
  if (batch.entries.length === 0) return;
  const unique = new Map(batch.entries.map((e) => [e.body_hash, e.body]));
  await client.query(
    `INSERT INTO loom.bodies (hash, body, search)
     SELECT x.hash, x.body, to_tsvector('english', ${SEARCH_TEXT})
       FROM (SELECT u.hash, u.body::jsonb AS body FROM unnest($1::text[], $2::text[]) AS u(hash, body) OFFSET 0) AS x
     ON CONFLICT DO NOTHING`,
    [[...unique.keys()], [...unique.values()].map((body) => JSON.stringify(body))],
  );
}

/** False when a position is taken by another message (the main query sees the rows from before this statement). */
async function insertEntries(client: pg.Client, batch: OutboxBatch, deviceId: string, hubSeq: string): Promise<boolean> {
  if (batch.entries.length === 0) return true;
  const json = JSON.stringify(batch.entries.map(({ session_id, seq, body_hash, device_seq }) => ({ session_id, seq, body_hash, device_seq })));
  const { rows } = await client.query(
    `WITH x AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(session_id uuid, seq integer, body_hash text, device_seq bigint)),
          ins AS (INSERT INTO loom.entries (session_id, seq, body_hash, device_id, device_seq, hub_seq)
                  SELECT x.session_id, x.seq, x.body_hash, $2, x.device_seq, $3 FROM x
                   WHERE NOT EXISTS (SELECT 1 FROM loom.sessions s WHERE s.id = x.session_id AND s.deleted_hlc IS NOT NULL)
                  ON CONFLICT (session_id, seq) DO NOTHING RETURNING 1)
     SELECT x.session_id FROM x JOIN loom.entries e ON e.session_id = x.session_id AND e.seq = x.seq WHERE e.body_hash <> x.body_hash LIMIT 1`,
    [json, deviceId, hubSeq],
  );
  return rows.length === 0;
}

async function insertRecords(client: pg.Client, batch: OutboxBatch, deviceId: string, hubSeq: string): Promise<void> {
  if (batch.records.length === 0) return;
  await client.query(
    `INSERT INTO loom.records (device_id, device_seq, session_id, kind, body, hub_seq)
     SELECT $2, x.device_seq, x.session_id, x.kind, x.body, $3 FROM jsonb_to_recordset($1::jsonb) AS x(session_id uuid, device_seq bigint, kind text, body jsonb)
      WHERE NOT EXISTS (SELECT 1 FROM loom.sessions s WHERE s.id = x.session_id AND s.deleted_hlc IS NOT NULL)
     ON CONFLICT (device_id, device_seq) DO NOTHING`,
    [JSON.stringify(batch.records), deviceId, hubSeq],
  );
}

/**
 * A share makes the session new to the team's members: its hub_seq moves past their
 * cursors. The hub takes shares only for teams the owner is in: the shares made, and the
 * teams refused.
 */
async function insertShares(client: pg.Client, batch: OutboxBatch, hubSeq: string): Promise<{ made: OutboxBatch['shares']; refused: string[] }> {
  if (batch.shares.length === 0) return { made: [], refused: [] };
  const { rows } = await client.query<{ team: string }>('SELECT team FROM loom.team_members WHERE member = current_user');
  const mine = new Set(rows.map((r) => r.team));
  const allowed = batch.shares.filter((s) => mine.has(s.team));
  if (allowed.length) {
    await client.query(
      `INSERT INTO loom.shares (session_id, team, hub_seq)
       SELECT x.session_id, x.team, $2 FROM jsonb_to_recordset($1::jsonb) AS x(session_id uuid, team text)
       ON CONFLICT (session_id, team) DO UPDATE SET hub_seq = excluded.hub_seq`,
      [JSON.stringify(allowed), hubSeq],
    );
    await client.query('UPDATE loom.sessions SET hub_seq = $2 WHERE id = ANY($1::uuid[]) AND deleted_hlc IS NULL', [allowed.map((s) => s.session_id), hubSeq]);
  }
  return { made: allowed, refused: batch.shares.filter((s) => !mine.has(s.team)).map((s) => s.team) };
}

/** The teams the pushing user is in: a share is made only for those (the shares policy's rule). */
const MY_TEAMS = `(SELECT tm.team FROM loom.team_members tm WHERE tm.member = current_user)`;

/**
 * A shared session's sub-agents are shared with it, so a teammate sees the children under
 * the parent: the children pushed now under a parent of the user's that is shared, then
 * the children on the hub (theirs, theirs…) of each session just shared. Only the user's
 * own sessions are followed on either side: a teammate's session that names a shared
 * session as its parent is not shared by this, nor does this user's share reach anyone
 * else's session. Each session newly shared moves past the team's cursors, as a share does.
 */
async function shareChildren(client: pg.Client, batch: OutboxBatch, shared: OutboxBatch['shares'], hubSeq: string): Promise<void> {
  const links = batch.sessions.flatMap((s) => {
    const parent = s.state.spawned_by;
    return typeof parent === 'string' && SESSION_ID_PATTERN.test(parent) ? [{ id: s.id, parent }] : [];
  });
  const pushedUnderShared = links.length === 0 ? [] : await insertChildShares(client, CHILDREN_OF_SHARED_PARENTS, JSON.stringify(links), hubSeq);
  const seeds = [...shared, ...pushedUnderShared];
  const onHub = seeds.length === 0 ? [] : await insertChildShares(client, CHILDREN_ON_HUB, JSON.stringify(seeds), hubSeq);
  const newlyShared = [...pushedUnderShared, ...onHub].map((s) => s.session_id);
  if (newlyShared.length) {
    await client.query('UPDATE loom.sessions SET hub_seq = $2 WHERE id = ANY($1::uuid[]) AND deleted_hlc IS NULL', [newlyShared, hubSeq]);
  }
}

/** Shares for `$1`'s pushed sessions whose parent the user owns and shares: (child, team) pairs. */
const CHILDREN_OF_SHARED_PARENTS = `SELECT x.id AS session_id, sh.team
  FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, parent uuid) JOIN loom.shares sh ON sh.session_id = x.parent AND sh.owner = current_user`;

/** Shares for the user's sessions on the hub below `$1`'s shared sessions through sub-agent links. */
const CHILDREN_ON_HUB = `WITH RECURSIVE below (session_id, team, depth) AS (
    SELECT x.session_id, x.team, 0 FROM jsonb_to_recordset($1::jsonb) AS x(session_id uuid, team text)
    UNION
    SELECT c.id, b.team, b.depth + 1 FROM below b JOIN loom.sessions c ON c.owner = current_user AND c.state->>'spawned_by' = b.session_id::text
     WHERE b.depth < ${MAX_LINK_DEPTH}
  ) SELECT session_id, team FROM below WHERE depth > 0`;

/** Inserts the shares `pairs` selects that are new, for the user's live sessions and teams; returns them. */
async function insertChildShares(client: pg.Client, pairs: string, json: string, hubSeq: string): Promise<OutboxBatch['shares']> {
  const { rows } = await client.query<{ session_id: string; team: string }>(
    `INSERT INTO loom.shares (session_id, team, hub_seq)
     SELECT DISTINCT p.session_id, p.team, $2::bigint FROM (${pairs}) AS p JOIN loom.sessions s ON s.id = p.session_id
      WHERE s.owner = current_user AND s.deleted_hlc IS NULL AND p.team IN ${MY_TEAMS}
     ON CONFLICT (session_id, team) DO NOTHING RETURNING session_id, team`,
    [json, hubSeq],
  );
  return rows;
}

/**
 * A deleted session keeps its row as a tombstone (title and state cleared) so other devices
 * learn of it; its messages, records and shares go, unless a live fork still reads them.
 */
async function applyTombstones(client: pg.Client, batch: OutboxBatch, hubSeq: string): Promise<void> {
  if (batch.tombstones.length === 0) return;
  const json = JSON.stringify(batch.tombstones);
  const ids = batch.tombstones.map((t) => t.session_id);
  await client.query(
    `UPDATE loom.sessions s SET deleted_hlc = x.hlc, title = NULL, state = '{}', hub_seq = $2
       FROM jsonb_to_recordset($1::jsonb) AS x(session_id uuid, hlc bigint) WHERE s.id = x.session_id AND s.deleted_hlc IS NULL`,
    [json, hubSeq],
  );
  const unread = `session_id = ANY($1::uuid[]) AND NOT EXISTS (SELECT 1 FROM loom.sessions f WHERE f.fork_parent_id = t.session_id AND f.deleted_hlc IS NULL)`;
  for (const table of ['entries', 'records', 'shares']) await client.query(`DELETE FROM loom.${table} t WHERE ${unread}`, [ids]);
}
