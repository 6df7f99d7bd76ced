/**
 * Notices what other processes committed to loom.db (docs/DESIGN.md#live-everywhere):
 * `PRAGMA data_version` on this connection moves only when another connection commits, so
 * a poll costs one pragma while nothing happens elsewhere. When it moves, the watcher reads
 * the change log (session-changes.ts) past the last row it saw, and SQLite compares just
 * those sessions' metadata with a copy this connection keeps in a TEMP table (private to
 * it, in memory): the ones that differ were changed, created or deleted by someone else.
 * A watcher that fell behind the log's trimmed start compares every session once instead.
 * A session in the Trash (trash.ts) is gone as far as a watcher can tell.
 *
 * This connection's own writes are in the log too, but they keep the copy up to date as
 * they happen, through TEMP triggers (which fire for this connection only), so they compare
 * equal: the engine announced them itself. And a session created here and deleted
 * elsewhere before the next poll is in the copy, so its going is still seen.
 */
import type { SessionMeta } from '../../shared/types';
import { META_COLUMNS, metaFromRow, type MetaRow } from './rows';
import type { SessionStore } from './session-store';
import { prepared } from './statements';
import { LIVE } from './trash';

export interface SessionChange {
  id: string;
  /** The session now, or null when it is gone. */
  meta: SessionMeta | null;
  /** How it was last seen (null for a new one). */
  before: SessionMeta | null;
}

const COLUMNS = [
  'id',
  'parent_id',
  'title',
  'summary',
  'status',
  'archived',
  'created_at',
  'updated_at',
  'message_count',
  'model',
  'cwd',
  'project_dir',
  'pinned',
  'agent',
];
const SEEN = 'temp.loom_seen_sessions';
const DIFFERS = COLUMNS.filter((c) => c !== 'id')
  .map((c) => `t.${c} IS NOT s.${c}`)
  .join(' OR ');
/** Which sessions to compare: those logged after `@after`, or (fallen behind the log) every one. */
const LOGGED = (column: string) => `${column} IN (SELECT session_id FROM main.session_changes WHERE seq > @after)`;
const EVERY = () => '1';

export class ChangeWatcher {
  private version = 0;
  /** The last change-log row this watcher has caught up with. */
  private seenSeq = 0;

  constructor(private readonly store: SessionStore) {
    const db = store.db;
    const row = (prefix: string) => COLUMNS.map((c) => `${prefix}.${c}`).join(', ');
    db.exec(`
      CREATE TEMP TABLE IF NOT EXISTS loom_seen_sessions (${COLUMNS.map((c) => (c === 'id' ? 'id TEXT PRIMARY KEY' : c)).join(', ')}) WITHOUT ROWID;
      CREATE TEMP TRIGGER IF NOT EXISTS loom_seen_insert AFTER INSERT ON main.sessions
        BEGIN INSERT OR REPLACE INTO loom_seen_sessions VALUES (${row('NEW')}); END;
      CREATE TEMP TRIGGER IF NOT EXISTS loom_seen_update AFTER UPDATE ON main.sessions BEGIN
        DELETE FROM loom_seen_sessions WHERE id = OLD.id;
        INSERT OR REPLACE INTO loom_seen_sessions SELECT ${row('NEW')} WHERE NEW.deleted_at IS NULL;
      END;
      CREATE TEMP TRIGGER IF NOT EXISTS loom_seen_delete AFTER DELETE ON main.sessions
        BEGIN DELETE FROM loom_seen_sessions WHERE id = OLD.id; END;
    `);
    // The copy and the log position from one snapshot: a commit between them would be missed.
    db.transaction(() => {
      db.exec(`DELETE FROM ${SEEN}; INSERT INTO ${SEEN} SELECT ${META_COLUMNS} FROM sessions s WHERE ${LIVE};`);
      this.seenSeq = this.lastLogged();
      this.version = this.dataVersion();
    })();
  }

  /** The sessions other connections changed since the last call; [] (one pragma) when none committed. */
  poll(): SessionChange[] {
    const version = this.dataVersion();
    if (version === this.version) return [];
    this.version = version;
    return this.store.db.transaction(() => this.catchUp())();
  }

  /** The changes logged since the last catch-up (a commit may have touched no session: then none). */
  private catchUp(): SessionChange[] {
    const last = this.lastLogged();
    if (last === this.seenSeq) return [];
    const changes = this.fellBehind() ? this.compare(EVERY, {}) : this.compare(LOGGED, { after: this.seenSeq });
    this.seenSeq = last;
    return changes;
  }

  /** True when rows this watcher has not read were trimmed from the log. */
  private fellBehind(): boolean {
    const first = prepared(this.store.db, 'SELECT MIN(seq) FROM main.session_changes').pluck().get() as number | null;
    return first !== null && first > this.seenSeq + 1;
  }

  /** The differences between the sessions in `scope` and the copy, the copy brought up to date. */
  private compare(scope: (column: string) => string, params: { after?: number }): SessionChange[] {
    const db = this.store.db;
    const changed = prepared(
      db,
      `SELECT ${META_COLUMNS} FROM sessions s LEFT JOIN ${SEEN} t ON t.id = s.id WHERE ${scope('s.id')} AND ${LIVE} AND (t.id IS NULL OR ${DIFFERS})`,
    ).all(params) as MetaRow[];
    const gone = prepared(
      db,
      `SELECT ${COLUMNS.join(', ')} FROM ${SEEN} t WHERE ${scope('t.id')} AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = t.id AND ${LIVE})`,
    ).all(params) as MetaRow[];
    const before = prepared(db, `SELECT ${COLUMNS.join(', ')} FROM ${SEEN} WHERE id = ?`);
    const changes: SessionChange[] = changed.map((row) => {
      const old = before.get(row.id) as MetaRow | undefined;
      return { id: row.id, meta: metaFromRow(row), before: old ? metaFromRow(old) : null };
    });
    for (const row of gone) changes.push({ id: row.id, meta: null, before: metaFromRow(row) });
    const upsert = prepared(db, `INSERT OR REPLACE INTO ${SEEN} (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((c) => `@${c}`).join(', ')})`);
    for (const row of changed) upsert.run(row);
    const remove = prepared(db, `DELETE FROM ${SEEN} WHERE id = ?`);
    for (const row of gone) remove.run(row.id);
    return changes;
  }

  private lastLogged(): number {
    return prepared(this.store.db, 'SELECT COALESCE(MAX(seq), 0) FROM main.session_changes').pluck().get() as number;
  }

  private dataVersion(): number {
    return (prepared(this.store.db, 'PRAGMA data_version').get() as { data_version: number }).data_version;
  }
}
