/**
 * The sessions table's writes: a new row, columns set on one, the order of `updated_at`.
 * The fork columns (fork_parent_pk, fork_at) are written by forks.ts, which keeps the
 * session tree whole.
 */
import type Database from 'better-sqlite3';
import type { ChildColumns } from '../children';
import type { MetaRow } from '../rows';
import { prepared } from '../statements';

/** A new session's row: its metadata and plan (JSON); the fork columns stay unset. */
export type SessionRow = MetaRow & { plan: string };

/** The columns a caller may set on an existing session, by name. */
export interface SessionColumns extends Omit<SessionRow, 'id'>, ChildColumns {
  fork_parent_pk: number | null;
  fork_at: number;
  note: string | null;
  /** When the session went to the Trash; null while it is live (trash.ts). */
  deleted_at: string | null;
  /** 1 when Loom made the title (a branch's, branch-title.ts); the user's rename makes it theirs. */
  title_by_loom: number;
}

export function insertSession(db: Database.Database, row: SessionRow): number {
  const { lastInsertRowid } = prepared(
    db,
    `INSERT INTO sessions (id, parent_id, title, summary, status, archived, created_at, updated_at, message_count, model, cwd, project_dir, pinned, agent, plan)
     VALUES (@id, @parent_id, @title, @summary, @status, @archived, @created_at, @updated_at, @message_count, @model, @cwd, @project_dir, @pinned, @agent, @plan)`,
  ).run(row);
  return Number(lastInsertRowid);
}

/** Sets the given columns of session `pk` (one statement, so its triggers see one change). */
export function setSessionColumns(db: Database.Database, pk: number, values: Partial<SessionColumns>): void {
  const assignments = Object.keys(values)
    .map((column) => `${column} = @${column}`)
    .join(', ');
  prepared(db, `UPDATE sessions SET ${assignments} WHERE pk = @pk`).run({ ...values, pk });
}

/**
 * A pulled session's length: its own rows' end, or where it forked when it has none past
 * it (the hub sends rows, never the count).
 */
export function recountMessages(db: Database.Database, pk: number): void {
  prepared(
    db,
    'UPDATE sessions SET message_count = MAX(fork_at, COALESCE((SELECT MAX(seq) + 1 FROM transcript WHERE session_pk = sessions.pk), 0)) WHERE pk = ?',
  ).run(pk);
}

/**
 * Now, or just after the latest update if the clock has not moved on (same millisecond,
 * or set back): the session changed last always lists first. Called inside a write
 * transaction, so no other writer can slip in between.
 */
export function nextUpdateTime(db: Database.Database): string {
  const { latest } = prepared(db, 'SELECT MAX(updated_at) AS latest FROM sessions').get() as { latest: string | null };
  const after = latest ? Date.parse(latest) + 1 : 0;
  return new Date(Math.max(Date.now(), after)).toISOString();
}
