import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { nextStamp } from './hlc';

/** What a device remembers of the hub it syncs with (table sync_state, one row while sync is on). */
export interface SyncState {
  hub: string;
  hub_id: string | null;
  device_id: string;
  cursor: number;
  clock: number;
}

export function readSyncState(db: Database.Database): SyncState | undefined {
  return db.prepare('SELECT hub, hub_id, device_id, cursor, clock FROM sync_state').get() as SyncState | undefined;
}

/** The tables whose rows are pushed as records, and each one's kind on the hub. */
export const RECORD_TABLES = {
  compactions: 'compaction',
  context_starts: 'context_start',
  model_changes: 'model_change',
  agent_changes: 'agent_change',
} as const;

/**
 * Sync with `hub` (described without a password) whose id is `hubId`. The first time, or
 * when the hub is another one (a different id behind the URL: re-created), this is ONE
 * transaction that creates the state row and queues every session, transcript row and
 * record, in that order: the first push is then an ordinary push. The device keeps its id.
 */
export function ensureSyncOn(db: Database.Database, hub: string, hubId: string): SyncState {
  return db
    .transaction(() => {
      const current = readSyncState(db);
      if (current && current.hub === hub && current.hub_id === hubId) return current;
      const deviceId = current?.device_id ?? randomUUID();
      // Shares queued before the first sync go with it; everything else is queued afresh below.
      db.exec(`DELETE FROM sync_state; DELETE FROM sync_outbox WHERE kind <> 'share'; DELETE FROM sync_inbox;`);
      const clock = nextStamp(current?.clock ?? 0);
      db.prepare('INSERT INTO sync_state (hub, hub_id, device_id, cursor, clock) VALUES (?, ?, ?, 0, ?)').run(hub, hubId, deviceId, clock);
      queueEverything(db, clock);
      return readSyncState(db) as SyncState;
    })
    .immediate();
}

function queueEverything(db: Database.Database, clock: number): void {
  db.prepare(`INSERT INTO sync_outbox (kind, session_id, hlc, fields) SELECT 'meta', id, ?, 'created' FROM sessions ORDER BY pk`).run(clock);
  db.prepare(
    `INSERT INTO sync_clocks (session_id, title_hlc, archived_hlc, state_hlc) SELECT id, @clock, @clock, @clock FROM sessions WHERE true
     ON CONFLICT (session_id) DO UPDATE SET title_hlc = @clock, archived_hlc = @clock, state_hlc = @clock`,
  ).run({ clock });
  db.prepare(
    `INSERT INTO sync_outbox (kind, session_id, ref, hlc) SELECT 'entry', s.id, t.seq, ? FROM transcript t JOIN sessions s ON s.pk = t.session_pk ORDER BY t.session_pk, t.seq`,
  ).run(clock);
  for (const table of Object.keys(RECORD_TABLES)) {
    db.prepare(
      `INSERT INTO sync_outbox (kind, session_id, ref, hlc, fields) SELECT 'record', s.id, r.id, ?, ? FROM ${table} r JOIN sessions s ON s.pk = r.session_pk ORDER BY r.id`,
    ).run(clock, table);
  }
}

/** Changes saved here and not yet pushed (while sync is off: those waiting for the first sync). */
export function queuedChanges(db: Database.Database): number {
  return (db.prepare('SELECT count(*) AS n FROM sync_outbox WHERE seq > (SELECT COALESCE(MAX(pushed), 0) FROM sync_state)').get() as { n: number }).n;
}

export function setCursor(db: Database.Database, cursor: number): void {
  db.prepare('UPDATE sync_state SET cursor = ?').run(cursor);
}

/** Later local changes are stamped after a remote stamp this device has seen. */
export function observeClock(db: Database.Database, remote: number): void {
  db.prepare('UPDATE sync_state SET clock = MAX(clock, ?)').run(remote);
}
