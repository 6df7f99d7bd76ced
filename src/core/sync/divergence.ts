import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { prepared } from '../store/statements';
import { forkTarget, insertStart, startAtOrBefore } from '../store/transcript-chain';

/**
 * A divergence (docs/DESIGN.md#sync-through-a-hub): the hub holds another device's
 * messages at positions where this device wrote its own, not yet pushed. The hub's rows
 * keep the positions (they got there first); this device's rows from `at` on move, with
 * the same seqs, into a new fork of the session at `at`, which carries `note` and is
 * pushed like any new session. Nothing is overwritten, and every device ends with the
 * same tree. Runs with the outbox triggers on: the branch and its records are queued.
 * Returns the branch's id.
 */
export function branchOffDivergence(db: Database.Database, pk: number, at: number, note: string): string {
  const id = randomUUID();
  const sql = (source: string) => prepared(db, source);
  const branch = Number(
    sql(
      `INSERT INTO sessions (id, parent_id, title, summary, status, archived, created_at, updated_at, message_count, model, cwd, plan, fork_parent_pk, fork_at, note)
       SELECT ?, id, title, summary, 'saved', 0, ?, updated_at, message_count, model, cwd, plan, ?, ?, ? FROM sessions WHERE pk = ?`,
    ).run(id, new Date().toISOString(), at === 0 ? null : forkTarget(db, pk, at), at, note, pk).lastInsertRowid,
  );
  inheritBefore(db, branch, pk, at);
  // Rows and records written here after `at` belong to the branch now; so do their queued pushes.
  sql('UPDATE transcript SET session_pk = ? WHERE session_pk = ? AND seq >= ?').run(branch, pk, at);
  for (const [table, columns, position] of MOVED_RECORDS) {
    // Copied (and queued) after the inherited ones, so the latest stays latest; the originals go.
    sql(`INSERT INTO ${table} (session_pk, ${columns}) SELECT ?, ${columns} FROM ${table} WHERE session_pk = ? AND ${position} > ? ORDER BY id`).run(
      branch,
      pk,
      at,
    );
    sql(`DELETE FROM ${table} WHERE session_pk = ? AND ${position} > ?`).run(pk, at);
  }
  sql(`UPDATE sync_outbox SET session_id = ? WHERE kind = 'entry' AND ref >= ? AND session_id = (SELECT id FROM sessions WHERE pk = ?)`).run(id, at, pk);
  // A local fork of the session past `at` read the moved rows: it now reads them from the branch.
  sql('UPDATE sessions SET fork_parent_pk = ? WHERE fork_parent_pk = ? AND fork_at > ? AND pk <> ?').run(branch, pk, at, branch);
  sql('UPDATE sessions SET message_count = ? WHERE pk = ?').run(at, pk);
  return id;
}

const MOVED_RECORDS = [
  ['compactions', 'at, before_tokens, after_tokens, summary, transcript_index', 'transcript_index'],
  ['model_changes', 'at, from_model, to_model, transcript_index', 'transcript_index'],
  ['context_starts', 'at_seq, kept_from, with_system, head, prompt_seq', 'at_seq'],
] as const;

/** What a fork at `at` inherits from the records before it (as SessionStore.fork does). */
function inheritBefore(db: Database.Database, branch: number, pk: number, at: number): void {
  const start = startAtOrBefore(db, pk, at);
  if (start) insertStart(db, branch, at, start);
  prepared(
    db,
    `INSERT INTO compactions (session_pk, at, before_tokens, after_tokens, summary, transcript_index)
     SELECT ?, at, before_tokens, after_tokens, summary, transcript_index FROM compactions WHERE session_pk = ? AND transcript_index <= ? ORDER BY id`,
  ).run(branch, pk, at);
  prepared(
    db,
    `INSERT INTO model_changes (session_pk, at, from_model, to_model, transcript_index)
     SELECT ?, at, from_model, to_model, transcript_index FROM model_changes WHERE session_pk = ? AND transcript_index <= ? ORDER BY id`,
  ).run(branch, pk, at);
}

/** The note a branch made by a divergence carries. */
export function divergenceNote(here: string, other: string): string {
  return `Diverged: written on ${here} while ${other} added to the same session; kept as a branch.`;
}
