import type Database from 'better-sqlite3';
import type { ChatMessage, MessageFacts } from '../../shared/types';
import { WHOLE_TRANSCRIPT, deriveContext, type ContextStart } from './context-start';
import { fromColumns, parseFacts, type MessageColumns } from './messages';
import { prepared } from './statements';

/**
 * A session's transcript is a chain of segments (docs/DESIGN.md#branches): a fork owns
 * the rows from its fork point on and reads the ones before it from the session it was
 * forked from, so forking copies no transcript rows. Seqs are global along the chain.
 */
export interface Segment {
  pk: number;
  /** First seq this session owns. */
  from: number;
  /** First seq read from the next segment (exclusive end). */
  to: number;
}

export type StoredMessage = Pick<MessageColumns, 'role' | 'content' | 'tool_calls' | 'tool_call_id' | 'stopped' | 'images'>;
const MESSAGE_COLUMNS = 'm.role, m.content, m.tool_calls, m.tool_call_id, m.stopped, m.images';
const END = Number.MAX_SAFE_INTEGER;

interface ForkRow {
  fork_parent_pk: number | null;
  fork_at: number;
}

function forkRow(db: Database.Database, pk: number): ForkRow {
  return prepared(db, 'SELECT fork_parent_pk, fork_at FROM sessions WHERE pk = ?').get(pk) as ForkRow;
}

/** Root first; the last segment is the session's own. */
export function segmentsOf(db: Database.Database, pk: number): Segment[] {
  const segments: Segment[] = [];
  let to = END;
  for (let current: number | null = pk; current !== null;) {
    const row = forkRow(db, current);
    segments.unshift({ pk: current, from: row.fork_at, to });
    to = row.fork_at;
    current = row.fork_parent_pk;
  }
  return segments;
}

/** Transcript messages from seq `offset`, at most `limit` (-1: all). */
export function readTranscript(db: Database.Database, pk: number, offset = 0, limit = -1): ChatMessage[] {
  return readAlongChain(db, pk, offset, limit, MESSAGE_COLUMNS, (row: StoredMessage) => fromColumns(row));
}

/** The facts of the same messages readTranscript reads (version 5), null where none were recorded. */
export function readTranscriptFacts(db: Database.Database, pk: number, offset = 0, limit = -1): (MessageFacts | null)[] {
  return readAlongChain(db, pk, offset, limit, 'm.facts', (row: { facts: string | null }) => parseFacts(row.facts));
}

/** What find in session reads of each transcript message from seq 0: no images, no facts. */
export function readTranscriptText(db: Database.Database, pk: number): Pick<MessageColumns, 'role' | 'content' | 'tool_text'>[] {
  return readAlongChain(db, pk, 0, -1, 'm.role, m.content, m.tool_text', (row: Pick<MessageColumns, 'role' | 'content' | 'tool_text'>) => row);
}

/** Rows of the transcript's messages in seq order, walking the chain's segments. */
function readAlongChain<Row, T>(db: Database.Database, pk: number, offset: number, limit: number, columns: string, map: (row: Row) => T): T[] {
  const read = prepared(
    db,
    `SELECT ${columns} FROM transcript t JOIN messages m ON m.id = t.message_id
      WHERE t.session_pk = ? AND t.seq >= ? AND t.seq < ? ORDER BY t.seq LIMIT ?`,
  );
  const out: T[] = [];
  for (const segment of segmentsOf(db, pk)) {
    const wanted = limit < 0 ? -1 : limit - out.length;
    if (wanted === 0) break;
    const from = Math.max(segment.from, offset);
    if (from >= segment.to) continue;
    for (const row of read.all(segment.pk, from, segment.to, wanted) as Row[]) out.push(map(row));
  }
  return out;
}

/** One segment's transcript rows in [start, to) that are not system prompts. */
const NON_PROMPT_ROWS = `FROM transcript t JOIN messages m ON m.id = t.message_id WHERE t.session_pk = ? AND t.seq >= ? AND t.seq < ? AND m.role <> 'system'`;

/**
 * The seq of the `n`-th (from 0) message at or after `from` that is not a system prompt,
 * counting along the chain without reading any message body; undefined past the end.
 */
export function nthNonSystemSeq(db: Database.Database, pk: number, from: number, n: number): number | undefined {
  const at = prepared(db, `SELECT t.seq ${NON_PROMPT_ROWS} ORDER BY t.seq LIMIT 1 OFFSET ?`);
  let left = n;
  for (const { segment, start } of segmentsFrom(db, pk, from)) {
    const inSegment = nonPromptsIn(db, segment, start);
    if (left < inSegment) return (at.get(segment.pk, start, segment.to, left) as { seq: number }).seq;
    left -= inSegment;
  }
  return undefined;
}

/** How many messages at or after `from` are not system prompts, counted along the chain without reading a body. */
export function nonSystemCountFrom(db: Database.Database, pk: number, from: number): number {
  let total = 0;
  for (const { segment, start } of segmentsFrom(db, pk, from)) total += nonPromptsIn(db, segment, start);
  return total;
}

function nonPromptsIn(db: Database.Database, segment: Segment, start: number): number {
  return (prepared(db, `SELECT count(*) AS n ${NON_PROMPT_ROWS}`).get(segment.pk, start, segment.to) as { n: number }).n;
}

/** The chain's segments that hold seqs at or after `from`, each with where in it that begins. */
function segmentsFrom(db: Database.Database, pk: number, from: number): { segment: Segment; start: number }[] {
  return segmentsOf(db, pk)
    .map((segment) => ({ segment, start: Math.max(segment.from, from) }))
    .filter(({ segment, start }) => start < segment.to);
}

/** The seq of the latest system prompt in [from, before), along the chain; null when there is none. */
export function lastSystemSeqIn(db: Database.Database, pk: number, from: number, before: number): number | null {
  const latest = prepared(
    db,
    `SELECT max(t.seq) AS seq FROM transcript t JOIN messages m ON m.id = t.message_id
      WHERE t.session_pk = ? AND t.seq >= ? AND t.seq < ? AND m.role = 'system'`,
  );
  for (const segment of segmentsOf(db, pk).reverse()) {
    const start = Math.max(segment.from, from);
    const end = Math.min(segment.to, before);
    if (start >= end) continue;
    const { seq } = latest.get(segment.pk, start, end) as { seq: number | null };
    if (seq !== null) return seq;
  }
  return null;
}

/** The one transcript message at `seq`. */
function readAt(db: Database.Database, pk: number, seq: number): ChatMessage | undefined {
  return readTranscript(db, pk, seq, 1)[0];
}

/** The session's latest start, or the whole transcript when nothing was compacted or replaced. */
export function currentStart(db: Database.Database, pk: number): ContextStart {
  return startAtOrBefore(db, pk, END) ?? WHOLE_TRANSCRIPT;
}

interface StartRow {
  kept_from: number;
  with_system: number;
  head: string;
  prompt_seq: number | null;
}

/** The start in effect when the transcript was `length` long: the one a fork at `length` inherits. */
export function startAtOrBefore(db: Database.Database, pk: number, length: number): ContextStart | undefined {
  const row = prepared(
    db,
    `SELECT kept_from, with_system, head, prompt_seq FROM context_starts WHERE session_pk = ? AND at_seq <= ? ORDER BY id DESC LIMIT 1`,
  ).get(pk, length) as StartRow | undefined;
  if (row) return startFromRow(row);
  const fork = forkRow(db, pk);
  return fork.fork_parent_pk !== null && length < fork.fork_at ? startAtOrBefore(db, fork.fork_parent_pk, length) : undefined;
}

/**
 * The start that was in force before start `startId` was written (what undoing a
 * compaction puts back): the session's previous one, else what a fork inherited at its
 * fork point, else the whole transcript.
 */
export function startBefore(db: Database.Database, pk: number, startId: number): ContextStart {
  const row = prepared(db, 'SELECT kept_from, with_system, head, prompt_seq FROM context_starts WHERE session_pk = ? AND id < ? ORDER BY id DESC LIMIT 1').get(
    pk,
    startId,
  ) as StartRow | undefined;
  if (row) return startFromRow(row);
  const fork = forkRow(db, pk);
  return (fork.fork_parent_pk === null ? undefined : startAtOrBefore(db, fork.fork_parent_pk, fork.fork_at)) ?? WHOLE_TRANSCRIPT;
}

function startFromRow(row: StartRow): ContextStart {
  return { keptFrom: row.kept_from, withSystem: row.with_system === 1, head: JSON.parse(row.head) as ChatMessage[], promptSeq: row.prompt_seq };
}

/** The working context: read from the start's suffix on, never the whole transcript. */
export function readContext(db: Database.Database, pk: number): ChatMessage[] {
  const start = currentStart(db, pk);
  const suffix = readTranscript(db, pk, start.keptFrom);
  const prompt = suffix.findLast((m) => m.role === 'system') ?? (start.promptSeq === null ? undefined : readAt(db, pk, start.promptSeq));
  return deriveContext(start, { latestSystem: prompt, suffix });
}

/** The session whose own rows hold the first `length` messages' last one: where a fork at `length` points. */
export function forkTarget(db: Database.Database, pk: number, length: number): number {
  const fork = forkRow(db, pk);
  return fork.fork_parent_pk !== null && length <= fork.fork_at ? forkTarget(db, fork.fork_parent_pk, length) : pk;
}
