import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { prepared } from '../store/statements';
import { forkRows, inheritRecords, moveTail } from '../store/repositories/forks';

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
  const source = prepared(db, 'SELECT updated_at, message_count FROM sessions WHERE pk = ?').get(pk) as { updated_at: string; message_count: number };
  const branch = forkRows(db, pk, at, { id, created_at: new Date().toISOString(), ...source, note, title: null });
  inheritRecords(db, branch, pk, at, source.message_count);
  // Rows and records written here after `at` belong to the branch now; so do their queued pushes.
  moveTail(db, pk, branch, at);
  prepared(db, `UPDATE sync_outbox SET session_id = ? WHERE kind = 'entry' AND ref >= ? AND session_id = (SELECT id FROM sessions WHERE pk = ?)`).run(
    id,
    at,
    pk,
  );
  return id;
}

/** The note a branch made by a divergence carries. */
export function divergenceNote(here: string, other: string): string {
  return `Diverged: written on ${here} while ${other} added to the same session; kept as a branch.`;
}
