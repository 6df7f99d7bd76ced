/**
 * Version 11 (docs/DESIGN.md#live-everywhere): the change log another process's watcher
 * reads instead of comparing every session. Triggers append one row per session created,
 * changed or deleted, in the same transaction as the change, whichever connection made it
 * (the `loom` command, a sync's pull, the backend itself). `seq` only grows (AUTOINCREMENT
 * never hands out a number twice), so a reader asks only for `seq > last seen`.
 *
 * The log keeps the newest KEPT_CHANGES rows (up to TRIM_EVERY more): no reader registers
 * itself, so the log cannot know what each still needs; a reader that finds rows it had not
 * read trimmed compares every session once instead (change-watcher.ts).
 */
const KEPT_CHANGES = 10_000;
const TRIM_EVERY = 1_000;

/**
 * The columns a SessionMeta was made of at version 11 (written out, not imported: a
 * migration's schema must not move with later code). A change to others only (a pull's
 * sync note; the store's own writes move updated_at too) is no change a window shows.
 */
const META_COLUMNS_V11 = ['id', 'parent_id', 'title', 'summary', 'status', 'archived', 'created_at', 'updated_at', 'message_count', 'model', 'cwd'];
const metaDiffers = (columns: readonly string[]) => columns.map((c) => `old.${c} IS NOT new.${c}`).join(' OR ');
const META_DIFFERS = metaDiffers(META_COLUMNS_V11);

/** The trigger that logs a changed session, dropped so that a later version may add its columns. */
const changedTrigger = (differs: string) => `
  CREATE TRIGGER session_changes_changed AFTER UPDATE ON sessions WHEN ${differs} BEGIN
    INSERT INTO session_changes (session_id, kind) SELECT old.id, 'deleted' WHERE old.id IS NOT new.id;
    INSERT INTO session_changes (session_id, kind) VALUES (new.id, 'changed');
  END;`;

/** Version 13 adds the project folder the user chose to a SessionMeta: choosing one is a change windows show. */
export const SESSION_CHANGES_V13 = `DROP TRIGGER session_changes_changed; ${changedTrigger(metaDiffers([...META_COLUMNS_V11, 'project_dir']))}`;

/** Version 14 adds the pin that keeps a session on top of the sidebar: pinning is a change windows show. */
export const SESSION_CHANGES_V14 = `DROP TRIGGER session_changes_changed; ${changedTrigger(metaDiffers([...META_COLUMNS_V11, 'project_dir', 'pinned']))}`;
/** Version 16 adds the session's agent: choosing one is a change windows show. */
export const SESSION_CHANGES_V16 = `DROP TRIGGER session_changes_changed; ${changedTrigger(metaDiffers([...META_COLUMNS_V11, 'project_dir', 'pinned', 'agent']))}`;

/** Version 18 adds a sub-agent's link and state: a child starting, ending or stopping is a change windows show. */
export const SESSION_CHANGES_V18 = `DROP TRIGGER session_changes_changed; ${changedTrigger(
  metaDiffers([...META_COLUMNS_V11, 'project_dir', 'pinned', 'agent', 'spawned_by', 'spawn_call_id', 'spawn_agent', 'child_state']),
)}`;

export const SESSION_CHANGES = `
  CREATE TABLE session_changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('created', 'changed', 'deleted'))
  );
  CREATE TRIGGER session_changes_created AFTER INSERT ON sessions BEGIN
    INSERT INTO session_changes (session_id, kind) VALUES (new.id, 'created');
  END;
  -- A session whose id changed is gone under its old one.${changedTrigger(META_DIFFERS)}
  CREATE TRIGGER session_changes_deleted AFTER DELETE ON sessions BEGIN
    INSERT INTO session_changes (session_id, kind) VALUES (old.id, 'deleted');
  END;
  -- Trimmed in batches, not on every append: one range delete per ${TRIM_EVERY} changes.
  CREATE TRIGGER session_changes_trim AFTER INSERT ON session_changes WHEN new.seq % ${TRIM_EVERY} = 0 BEGIN
    DELETE FROM session_changes WHERE seq <= new.seq - ${KEPT_CHANGES};
  END;
`;
