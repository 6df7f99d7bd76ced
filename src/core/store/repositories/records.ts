/**
 * A session's records: what happened to it at a transcript position (compactions, model
 * changes, context starts) and its usage totals. Records are only added (a compaction's
 * facts and undo are compaction-records.ts); forks.ts copies and moves them with a fork.
 */
import type Database from 'better-sqlite3';
import type { AgentChange, CallKind, CallUsage, Compaction, ModelChange, SessionUsage, UsageTotals } from '../../../shared/types';
import type { ContextStart } from '../context-start';
import { prepared } from '../statements';

/**
 * The records that sync and forks carry, each with the columns that make it (the rest are
 * local bookkeeping) and the column naming its transcript position. Sync pushes a record
 * as these columns, and a pulled record's data never names a column of its own.
 */
export const RECORD_TABLES = {
  compaction: { table: 'compactions', columns: ['at', 'before_tokens', 'after_tokens', 'summary', 'transcript_index'], position: 'transcript_index' },
  context_start: { table: 'context_starts', columns: ['at_seq', 'kept_from', 'with_system', 'head', 'prompt_seq'], position: 'at_seq' },
  model_change: { table: 'model_changes', columns: ['at', 'from_model', 'to_model', 'transcript_index'], position: 'transcript_index' },
  agent_change: { table: 'agent_changes', columns: ['at', 'from_agent', 'to_agent', 'transcript_index'], position: 'transcript_index' },
} as const;

export type RecordTable = (typeof RECORD_TABLES)[keyof typeof RECORD_TABLES];

/** Returns the new start's id. */
export function insertStart(db: Database.Database, pk: number, atSeq: number, start: ContextStart): number {
  const { lastInsertRowid } = prepared(
    db,
    'INSERT INTO context_starts (session_pk, at_seq, kept_from, with_system, head, prompt_seq) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(pk, atSeq, start.keptFrom, start.withSystem ? 1 : 0, JSON.stringify(start.head), start.promptSeq);
  return Number(lastInsertRowid);
}

/** Returns the record's id (its facts are added by compaction-records.ts). */
export function insertCompaction(db: Database.Database, pk: number, c: Compaction): number {
  const { lastInsertRowid } = prepared(
    db,
    `INSERT INTO compactions (session_pk, at, before_tokens, after_tokens, summary, transcript_index) VALUES (?, ?, ?, ?, ?, ?)`,
  ).run(pk, c.at, c.before_tokens, c.after_tokens, c.summary, c.transcript_index ?? null);
  return Number(lastInsertRowid);
}

export function insertModelChange(db: Database.Database, pk: number, c: ModelChange): void {
  prepared(db, 'INSERT INTO model_changes (session_pk, at, from_model, to_model, transcript_index) VALUES (?, ?, ?, ?, ?)').run(
    pk,
    c.at,
    c.from,
    c.to,
    c.transcript_index,
  );
}

export function insertAgentChange(db: Database.Database, pk: number, c: AgentChange): void {
  prepared(db, 'INSERT INTO agent_changes (session_pk, at, from_agent, to_agent, transcript_index) VALUES (?, ?, ?, ?, ?)').run(
    pk,
    c.at,
    c.from,
    c.to,
    c.transcript_index,
  );
}

/** Adds `calls` calls and their tokens and cost to the session's totals of `kind`. */
export function addUsage(db: Database.Database, pk: number, kind: CallKind, usage: CallUsage, calls: number): void {
  prepared(
    db,
    `INSERT INTO usage (session_pk, kind, calls, prompt_tokens, completion_tokens, cost_usd) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (session_pk, kind) DO UPDATE SET
       calls = calls + excluded.calls,
       prompt_tokens = prompt_tokens + excluded.prompt_tokens,
       completion_tokens = completion_tokens + excluded.completion_tokens,
       cost_usd = cost_usd + excluded.cost_usd`,
  ).run(pk, kind, calls, usage.prompt_tokens, usage.completion_tokens, usage.cost_usd);
}

/** The session's totals become exactly these (a pulled state carries them whole, its kinds checked by sync/pulled-rows.ts). */
export function replaceUsage(db: Database.Database, pk: number, totals: readonly (UsageTotals & { kind: string })[]): void {
  prepared(db, 'DELETE FROM usage WHERE session_pk = ?').run(pk);
  const insert = prepared(db, 'INSERT INTO usage (session_pk, kind, calls, prompt_tokens, completion_tokens, cost_usd) VALUES (?, ?, ?, ?, ?, ?)');
  for (const u of totals) insert.run(pk, u.kind, u.calls, u.prompt_tokens, u.completion_tokens, u.cost_usd);
}

/** Inserted once: a pull that is run again (killed before its end) finds the same record there. */
export function insertRecordOnce(db: Database.Database, shape: RecordTable, pk: number, body: Record<string, unknown>): void {
  const values = shape.columns.map((c) => (body[c] ?? null) as string | number | null);
  const same = shape.columns.map((c) => `${c} IS ?`).join(' AND ');
  prepared(
    db,
    `INSERT INTO ${shape.table} (session_pk, ${shape.columns.join(', ')}) SELECT ?, ${shape.columns.map(() => '?').join(', ')}
      WHERE NOT EXISTS (SELECT 1 FROM ${shape.table} WHERE session_pk = ? AND ${same})`,
  ).run(pk, ...values, pk, ...values);
}

/** In order; `transcript_index` only where it is known (older records may lack it). */
export function listCompactions(db: Database.Database, pk: number): Compaction[] {
  const rows = prepared(db, `SELECT at, before_tokens, after_tokens, summary, transcript_index FROM compactions WHERE session_pk = ? ORDER BY id`).all(
    pk,
  ) as (Omit<Compaction, 'transcript_index'> & { transcript_index: number | null })[];
  return rows.map(({ transcript_index, ...c }) => (transcript_index === null ? c : { ...c, transcript_index }));
}

/** Oldest first. */
export function listModelChanges(db: Database.Database, pk: number): ModelChange[] {
  return prepared(db, 'SELECT at, from_model AS "from", to_model AS "to", transcript_index FROM model_changes WHERE session_pk = ? ORDER BY id').all(
    pk,
  ) as ModelChange[];
}

/** Oldest first. */
export function listAgentChanges(db: Database.Database, pk: number): AgentChange[] {
  return prepared(db, 'SELECT at, from_agent AS "from", to_agent AS "to", transcript_index FROM agent_changes WHERE session_pk = ? ORDER BY id').all(
    pk,
  ) as AgentChange[];
}

/** The session's totals, by kind and overall. */
export function readUsage(db: Database.Database, pk: number): SessionUsage {
  return readUsageOf(db, [pk]);
}

/** The usage of several sessions summed (a parent's sub-agents, docs/DESIGN.md#sub-agents). */
export function readUsageOf(db: Database.Database, pks: readonly number[]): SessionUsage {
  const rows = prepared(
    db,
    `SELECT kind, SUM(calls) AS calls, SUM(prompt_tokens) AS prompt_tokens, SUM(completion_tokens) AS completion_tokens, SUM(cost_usd) AS cost_usd
       FROM usage WHERE session_pk IN (SELECT value FROM json_each(?)) GROUP BY kind`,
  ).all(JSON.stringify(pks)) as (UsageTotals & {
    kind: CallKind;
  })[];
  const zero = (): UsageTotals => ({ calls: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 });
  const usage: SessionUsage = { ...zero(), by_kind: { chat: zero(), compaction: zero(), summary: zero() } };
  for (const { kind, ...totals } of rows) {
    usage.by_kind[kind] = totals;
    usage.calls += totals.calls;
    usage.prompt_tokens += totals.prompt_tokens;
    usage.completion_tokens += totals.completion_tokens;
    usage.cost_usd += totals.cost_usd;
  }
  return usage;
}
