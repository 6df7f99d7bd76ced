/**
 * What each compaction did, beyond its summary (docs/DESIGN.md#seeing-and-undoing-a-compaction):
 * the range it summarised, its requests, what it carried, the context start it wrote, and
 * undo, which puts the start in force before it back, so the previous working context
 * returns exactly (with whatever was appended since), and marks the record undone.
 */
import type Database from 'better-sqlite3';
import type { CompactionDetail } from '../../../shared/types';
import { LoomError } from '../../errors';
import { prepared } from '../statements';
import { startBefore } from '../transcript-chain';
import { insertStart } from './records';

export interface CompactionFacts {
  summarisedFrom: number;
  keptFrom: number;
  steps: number;
  carried: string | null;
  /** The start the compaction wrote; null when it wrote none (the context was already so). */
  startId: number | null;
}

export function recordFacts(db: Database.Database, compactionId: number, facts: CompactionFacts): void {
  prepared(db, 'UPDATE compactions SET summarised_from = ?, kept_from = ?, steps = ?, carried = ?, start_id = ? WHERE id = ?').run(
    facts.summarisedFrom,
    facts.keptFrom,
    facts.steps,
    facts.carried,
    facts.startId,
    compactionId,
  );
}

interface DetailRow {
  id: number;
  at: string;
  before_tokens: number;
  after_tokens: number;
  summary: string;
  transcript_index: number | null;
  summarised_from: number | null;
  kept_from: number | null;
  steps: number | null;
  carried: string | null;
  start_id: number | null;
  undone_at: string | null;
}

export function listDetails(db: Database.Database, pk: number): CompactionDetail[] {
  const rows = prepared(
    db,
    `SELECT id, at, before_tokens, after_tokens, summary, transcript_index, summarised_from, kept_from, steps, carried, start_id, undone_at
       FROM compactions WHERE session_pk = ? ORDER BY id`,
  ).all(pk) as DetailRow[];
  const undoable = undoableRow(db, pk)?.id;
  return rows.map(({ transcript_index, start_id: _start, ...row }) => ({
    ...row,
    ...(transcript_index === null ? {} : { transcript_index }),
    undoable: row.id === undoable,
  }));
}

/**
 * The compaction undo takes back: the latest one not undone, when the start it wrote is
 * still the session's latest (nothing replaced the context since, such as a later
 * compaction or an import). Null otherwise.
 */
function undoableRow(db: Database.Database, pk: number): { id: number; start_id: number } | undefined {
  const last = prepared(db, 'SELECT id, start_id FROM compactions WHERE session_pk = ? AND undone_at IS NULL ORDER BY id DESC LIMIT 1').get(pk) as
    { id: number; start_id: number | null } | undefined;
  if (!last || last.start_id === null) return undefined;
  const latest = prepared(db, 'SELECT max(id) AS id FROM context_starts WHERE session_pk = ?').get(pk) as { id: number | null };
  return latest.id === last.start_id ? { id: last.id, start_id: last.start_id } : undefined;
}

/** Undoes the last compaction (see undoableRow); `length`: the transcript's length now. */
export function undoLast(db: Database.Database, pk: number, length: number): void {
  const row = undoableRow(db, pk);
  if (!row) throw new LoomError('There is no compaction to undo: none was made, the last one was undone, or the context changed since.', 'nothing_to_undo');
  insertStart(db, pk, length, startBefore(db, pk, row.start_id));
  prepared(db, 'UPDATE compactions SET undone_at = ? WHERE id = ?').run(new Date().toISOString(), row.id);
}
