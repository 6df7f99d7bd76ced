/**
 * Version 9 (docs/DESIGN.md#sync-through-a-hub): what a device remembers of its hub and the
 * changes it has not pushed yet. The outbox is filled by triggers in the same transaction
 * as the change, so nothing can be saved and not queued; they queue only while sync is on
 * (a sync_state row exists) and never while a pull applies remote changes (sync_applying
 * holds its one row), so a data folder that never syncs pays one EXISTS per write.
 *
 * Every queued change is stamped with the hybrid logical clock: max(now in µs, clock + 1),
 * one safe integer (wall milliseconds × 1000 + a counter), taken when the change is made.
 */
const SYNC_ON = 'EXISTS (SELECT 1 FROM sync_state) AND NOT EXISTS (SELECT 1 FROM sync_applying)';
const TICK = `UPDATE sync_state SET clock = MAX(CAST(unixepoch('subsec') * 1000 AS INTEGER) * 1000, clock + 1)`;
const STAMP = '(SELECT MAX(clock) FROM sync_state)';

/** One trigger: tick the clock, queue the change, then any `more` statements (which may use STAMP). */
function queueTrigger(name: string, event: string, when: string, kind: string, sessionId: string, ref: string, fields: string, more = ''): string {
  return `
  CREATE TRIGGER ${name} ${event} WHEN ${SYNC_ON}${when ? ` AND (${when})` : ''} BEGIN
    ${TICK};
    INSERT INTO sync_outbox (kind, session_id, ref, hlc, fields) VALUES ('${kind}', ${sessionId}, ${ref}, ${STAMP}, ${fields});
    ${more}
  END;`;
}

function clockUpsert(column: string): string {
  return `INSERT INTO sync_clocks (session_id, ${column}) VALUES (new.id, ${STAMP})
      ON CONFLICT (session_id) DO UPDATE SET ${column} = excluded.${column};`;
}

/** The session columns that move as its "state" (one LWW field); message_count follows the transcript. */
const STATE_COLUMNS = ['parent_id', 'summary', 'status', 'created_at', 'updated_at', 'model', 'cwd', 'plan', 'fork_parent_pk', 'fork_at', 'note'];

/**
 * Version 19 (docs/DESIGN.md#sync-through-a-hub): the session's agent and a sub-agent's link
 * and run state move with its state too (project_dir and pinned stay each device's own).
 */
const STATE_COLUMNS_V19 = [...STATE_COLUMNS, 'agent', 'spawned_by', 'spawn_call_id', 'spawn_agent', 'child_state'];

const stateTrigger = (columns: readonly string[]) =>
  queueTrigger(
    'sync_queue_state',
    `AFTER UPDATE OF ${columns.join(', ')} ON sessions`,
    columns.map((c) => `old.${c} IS NOT new.${c}`).join(' OR '),
    'meta',
    'new.id',
    'NULL',
    `'state'`,
    clockUpsert('state_hlc'),
  );

const sessionOf = (pk: string) => `(SELECT id FROM sessions WHERE pk = ${pk})`;

function recordTrigger(table: string): string {
  return queueTrigger(`sync_queue_${table}`, `AFTER INSERT ON ${table}`, '', 'record', sessionOf('new.session_pk'), 'new.id', `'${table}'`);
}

function usageTrigger(event: 'INSERT' | 'UPDATE'): string {
  return queueTrigger(
    `sync_queue_usage_${event.toLowerCase()}`,
    `AFTER ${event} ON usage`,
    '',
    'meta',
    sessionOf('new.session_pk'),
    'NULL',
    `'state'`,
    `INSERT INTO sync_clocks (session_id, state_hlc) VALUES (${sessionOf('new.session_pk')}, ${STAMP})
      ON CONFLICT (session_id) DO UPDATE SET state_hlc = excluded.state_hlc;`,
  );
}

export const SYNC_TABLES = `
  ALTER TABLE sessions ADD COLUMN note TEXT;

  -- One row while sync is on: the hub (its URL without a password), the hub's id, this
  -- device's id, the last hub_seq applied, the clock's floor, and the last outbox seq a
  -- hub commit took (its rows are deleted once the hub's device row confirms it: a hub
  -- that lost a commit in a crash gets them again).
  CREATE TABLE sync_state (
    hub TEXT PRIMARY KEY,
    hub_id TEXT,
    device_id TEXT NOT NULL,
    cursor INTEGER NOT NULL DEFAULT 0,
    clock INTEGER NOT NULL DEFAULT 0,
    pushed INTEGER NOT NULL DEFAULT 0
  );
  -- seq is the device's own sequence: every entry pushed is keyed by (device_id, seq).
  CREATE TABLE sync_outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('entry', 'meta', 'record', 'tombstone', 'share', 'conflict')),
    session_id TEXT NOT NULL,
    ref INTEGER,
    hlc INTEGER NOT NULL,
    fields TEXT
  );
  -- Per field: the stamp of the value here (*_hlc) and of the last value taken from or given
  -- to the hub (*_synced); a local stamp above *_synced is a change the hub has not seen,
  -- so a hub value that differs from it raced it (sync/apply.ts records the loser).
  CREATE TABLE sync_clocks (
    session_id TEXT PRIMARY KEY,
    title_hlc INTEGER NOT NULL DEFAULT 0,
    archived_hlc INTEGER NOT NULL DEFAULT 0,
    state_hlc INTEGER NOT NULL DEFAULT 0,
    title_synced INTEGER NOT NULL DEFAULT 0,
    archived_synced INTEGER NOT NULL DEFAULT 0,
    state_synced INTEGER NOT NULL DEFAULT 0
  ) WITHOUT ROWID;
  CREATE TABLE sync_applying (one INTEGER PRIMARY KEY CHECK (one = 1));
  -- Pulled changes waiting for a session another process holds (one JSON change per row, in order).
  CREATE TABLE sync_inbox (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    change TEXT NOT NULL
  );
  CREATE INDEX sync_inbox_by_session ON sync_inbox (session_id, id);
  ${queueTrigger('sync_queue_entry', 'AFTER INSERT ON transcript', '', 'entry', sessionOf('new.session_pk'), 'new.seq', 'NULL')}
  ${queueTrigger(
    'sync_queue_created',
    'AFTER INSERT ON sessions',
    '',
    'meta',
    'new.id',
    'NULL',
    `'created'`,
    `INSERT INTO sync_clocks (session_id, title_hlc, archived_hlc, state_hlc) VALUES (new.id, ${STAMP}, ${STAMP}, ${STAMP})
      ON CONFLICT (session_id) DO UPDATE SET title_hlc = excluded.title_hlc, archived_hlc = excluded.archived_hlc, state_hlc = excluded.state_hlc;`,
  )}
  ${queueTrigger('sync_queue_title', 'AFTER UPDATE OF title ON sessions', 'old.title IS NOT new.title', 'meta', 'new.id', 'NULL', `'title'`, clockUpsert('title_hlc'))}
  ${queueTrigger('sync_queue_archived', 'AFTER UPDATE OF archived ON sessions', 'old.archived IS NOT new.archived', 'meta', 'new.id', 'NULL', `'archived'`, clockUpsert('archived_hlc'))}
  ${stateTrigger(STATE_COLUMNS)}
  ${queueTrigger('sync_queue_tombstone', 'AFTER DELETE ON sessions', '', 'tombstone', 'old.id', 'NULL', 'NULL')}
  ${recordTrigger('compactions')}
  ${recordTrigger('context_starts')}
  ${recordTrigger('model_changes')}
  ${usageTrigger('INSERT')}
  ${usageTrigger('UPDATE')}
`;

/**
 * Version 19: the state trigger hears the agent and the sub-agent columns, agent changes are
 * records; a device already syncing queues again the sessions and records the hub never had
 * them of (a session with an agent or a link, each agent change), stamped now (the clock
 * moves only when there is one: a device without any keeps its clock as it was).
 */
export const SYNC_TABLES_V19 = `
  DROP TRIGGER sync_queue_state;
  ${stateTrigger(STATE_COLUMNS_V19)}
  ${recordTrigger('agent_changes')}
  ${TICK} WHERE EXISTS (SELECT 1 FROM sessions WHERE agent IS NOT NULL OR spawned_by IS NOT NULL) OR EXISTS (SELECT 1 FROM agent_changes);
  INSERT INTO sync_outbox (kind, session_id, hlc, fields)
    SELECT 'meta', id, ${STAMP}, 'state' FROM sessions WHERE (agent IS NOT NULL OR spawned_by IS NOT NULL) AND ${SYNC_ON} ORDER BY pk;
  INSERT INTO sync_clocks (session_id, state_hlc)
    SELECT id, ${STAMP} FROM sessions WHERE (agent IS NOT NULL OR spawned_by IS NOT NULL) AND ${SYNC_ON}
    ON CONFLICT (session_id) DO UPDATE SET state_hlc = excluded.state_hlc;
  INSERT INTO sync_outbox (kind, session_id, ref, hlc, fields)
    SELECT 'record', s.id, r.id, ${STAMP}, 'agent_changes' FROM agent_changes r JOIN sessions s ON s.pk = r.session_pk WHERE ${SYNC_ON} ORDER BY r.id;
`;
