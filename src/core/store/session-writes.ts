/**
 * The steps SessionStore's writes are made of, each run inside its write transaction:
 * a message appended, a working context recorded, an exported session imported. The SQL
 * is the repositories' (repositories/README.md); this is what the steps mean.
 */
import type Database from 'better-sqlite3';
import { CALL_KINDS, type ChatMessage, type MessageFacts } from '../../shared/types';
import { derive, normalized, sameMessages, startFor, type ContextStart } from './context-start';
import type { ExportedSession } from './export-schema';
import { toColumns } from './messages';
import { addUsage, insertCompaction, insertModelChange, insertStart } from './repositories/records';
import { insertSession, nextUpdateTime, setSessionColumns } from './repositories/sessions';
import { insertEntry } from './repositories/transcript';
import { prepared } from './statements';
import { currentStart, lastSystemSeqIn, nthNonSystemSeq, readTranscript } from './transcript-chain';

export function messageCount(db: Database.Database, pk: number): number {
  return (prepared(db, 'SELECT message_count FROM sessions WHERE pk = ?').get(pk) as { message_count: number }).message_count;
}

/** Message `seq` of session `pk` (its body, transcript row, search queue entry), facts kept as JSON. */
export function insertMessage(db: Database.Database, pk: number, seq: number, message: ChatMessage, facts: MessageFacts | null): void {
  insertEntry(db, pk, seq, { ...toColumns(message), facts: facts && JSON.stringify(facts) });
}

/** Appends `message` at `at` and makes the session the latest updated; returns its seq and facts. */
export function appendTo(db: Database.Database, pk: number, message: ChatMessage, facts: MessageFacts): number {
  const seq = messageCount(db, pk);
  insertMessage(db, pk, seq, message, facts);
  setSessionColumns(db, pk, { message_count: seq + 1, updated_at: facts.at });
  return seq;
}

/**
 * Makes `messages` the working context: records a start that derives it from the
 * transcript, unless the current one already does (appends need none). Returns the id of
 * the start written; null when none was needed.
 */
export function writeContext(db: Database.Database, pk: number, messages: ChatMessage[]): number | null {
  const transcript = readTranscript(db, pk);
  if (sameMessages(derive(currentStart(db, pk), transcript), messages)) return null;
  return insertStart(db, pk, transcript.length, startFor(messages, transcript));
}

/**
 * The start of a compacted context `[prompt, ...head, ...context[cut:]]` (the head: the
 * boundary, and what the compaction carried, `headLength` messages) from the cut's
 * transcript position (docs/DESIGN.md#compaction-on-a-derived-context): the context
 * before it was `[prompt] + head + the suffix from keptFrom`, prompts left out, so the
 * cut is the (cut - 1 - head)-th non-prompt message from keptFrom. Null when the context
 * is not of that shape (it did not lead with the prompt, or the cut fell in its head):
 * writeContext then finds the start by reading the transcript.
 */
export function compactionStart(db: Database.Database, pk: number, compacted: ChatMessage[], cut: number, headLength: number): ContextStart | null {
  const current = currentStart(db, pk);
  const inSuffix = cut - 1 - current.head.length;
  if (!current.withSystem || compacted[0]?.role !== 'system' || compacted.length < 1 + headLength || inSuffix < 0) return null;
  const keptFrom = nthNonSystemSeq(db, pk, current.keptFrom, inSuffix) ?? messageCount(db, pk);
  const promptSeq = lastSystemSeqIn(db, pk, current.keptFrom, keptFrom) ?? current.promptSeq;
  return { keptFrom, withSystem: true, head: compacted.slice(1, 1 + headLength).map(normalized), promptSeq };
}

/** A JSON export as session `id`: its rows as given (status saved), updated now. */
export function insertImported(db: Database.Database, id: string, s: ExportedSession): void {
  const pk = insertSession(db, {
    id,
    parent_id: s.parent_id,
    title: s.title,
    summary: s.summary,
    status: 'saved',
    archived: s.archived ? 1 : 0,
    created_at: s.created_at,
    updated_at: nextUpdateTime(db),
    message_count: 0,
    model: s.model,
    cwd: s.cwd,
    plan: JSON.stringify(s.plan),
  });
  s.transcript.forEach((message, seq) => insertMessage(db, pk, seq, message, s.transcript_facts?.[seq] ?? null));
  setSessionColumns(db, pk, { message_count: s.transcript.length });
  writeContext(db, pk, s.messages);
  for (const c of s.compactions) insertCompaction(db, pk, c);
  for (const change of s.model_changes ?? []) insertModelChange(db, pk, change);
  for (const kind of CALL_KINDS) {
    const totals = s.usage.by_kind[kind];
    if (totals.calls || totals.prompt_tokens || totals.completion_tokens || totals.cost_usd) addUsage(db, pk, kind, totals, totals.calls);
  }
}
