/**
 * The steps SessionStore's writes are made of, each run inside its write transaction:
 * a session created, a message appended, a working context recorded, a compaction, a
 * model or project change, an exported session imported. The SQL is the repositories'
 * (repositories/README.md); this is what the steps mean.
 */
import type Database from 'better-sqlite3';
import { CALL_KINDS, type CallUsage, type ChatMessage, type ChildState, type Compaction, type MessageFacts, type PlanState } from '../../shared/types';
import { derive, normalized, sameMessages, startFor, type ContextStart } from './context-start';
import type { ExportedSession } from './export-schema';
import { toColumns } from './messages';
import { recordFacts, undoLast } from './repositories/compaction-records';
import { addUsage, insertCompaction, insertAgentChange, insertModelChange, insertStart } from './repositories/records';
import { insertSession, nextUpdateTime, setSessionColumns } from './repositories/sessions';
import { insertEntry } from './repositories/transcript';
import { prepared } from './statements';
import { currentStart, lastSystemSeqIn, nthNonSystemSeq, readContext, readTranscript } from './transcript-chain';

const EMPTY_PLAN: PlanState = { todos: [], scratchpad: '' };

export interface NewSession {
  model?: string | null;
  cwd?: string | null;
  /** The folder the user chose for it (recorded as its cwd too). */
  projectDir?: string;
  title?: string | null;
  messages?: ChatMessage[];
  /** A session this one came from without sharing its messages (an imported sub-agent's). */
  parentId?: string | null;
  /** A sub-agent's: the session and the run_subagent call that start it, and its agent (children.ts); it starts running. */
  spawn?: { parentId: string; callId: string; agent: string };
}

/** Session `id`, active, with an empty plan and `init.messages` appended, all at one time. */
export function insertNew(db: Database.Database, id: string, init: NewSession): void {
  const at = nextUpdateTime(db);
  const pk = insertSession(db, {
    id,
    parent_id: init.parentId ?? null,
    title: init.title ?? null,
    summary: null,
    status: 'active',
    archived: 0,
    created_at: at,
    updated_at: at,
    message_count: 0,
    model: init.model ?? null,
    cwd: init.cwd ?? init.projectDir ?? null,
    project_dir: init.projectDir ?? null,
    pinned: 0,
    agent: null,
    plan: JSON.stringify(EMPTY_PLAN),
  });
  const { spawn } = init;
  if (spawn) setSessionColumns(db, pk, { spawned_by: spawn.parentId, spawn_call_id: spawn.callId, spawn_agent: spawn.agent, child_state: 'running' });
  for (const message of init.messages ?? []) appendTo(db, pk, message, at);
}

export function messageCount(db: Database.Database, pk: number): number {
  return (prepared(db, 'SELECT message_count FROM sessions WHERE pk = ?').get(pk) as { message_count: number }).message_count;
}

/** Message `seq` of session `pk` (its body, transcript row, search queue entry), facts kept as JSON. */
export function insertMessage(db: Database.Database, pk: number, seq: number, message: ChatMessage, facts: MessageFacts | null): void {
  insertEntry(db, pk, seq, { ...toColumns(message), facts: facts && JSON.stringify(facts) });
}

/** What the caller knows of a message it appends; the store adds when (MessageFacts.at). */
export type AppendFacts = Omit<MessageFacts, 'at'>;

/** A message as the store committed it: its transcript position (`seq`, never reused) and its facts. */
export interface AppendedMessage {
  seq: number;
  facts: MessageFacts;
}

/** Appends `message` at `at` and makes the session the latest updated. */
export function appendTo(db: Database.Database, pk: number, message: ChatMessage, at: string, known: AppendFacts = {}): AppendedMessage {
  const facts = { at, ...known };
  const seq = messageCount(db, pk);
  insertMessage(db, pk, seq, message, facts);
  setSessionColumns(db, pk, { message_count: seq + 1, updated_at: at });
  return { seq, facts };
}

/** Appends `messages` in order, `facts[i]` what the source recorded of message i (its own time; now when none). */
export function appendAll(db: Database.Database, pk: number, messages: readonly ChatMessage[], facts: readonly (Partial<MessageFacts> | undefined)[]): void {
  const now = nextUpdateTime(db);
  messages.forEach((message, i) => {
    const { at = now, ...known } = facts[i] ?? {};
    appendTo(db, pk, message, at, known);
  });
}

/** writeContext, the session then the latest updated. */
export function replaceContext(db: Database.Database, pk: number, messages: ChatMessage[]): void {
  writeContext(db, pk, messages);
  setSessionColumns(db, pk, { updated_at: nextUpdateTime(db) });
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

/** A JSON export as session `id`: its rows as given (status saved), updated now; `link`: the sub-agent link to its imported parent. */
export function insertImported(db: Database.Database, id: string, s: ExportedSession, link: ImportedLink | null = null): void {
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
    // The folder an export records is its say, never where its tools work: the user chooses that.
    project_dir: null,
    pinned: 0,
    agent: s.agent ?? null,
    plan: JSON.stringify(s.plan),
  });
  s.transcript.forEach((message, seq) => insertMessage(db, pk, seq, message, s.transcript_facts?.[seq] ?? null));
  setSessionColumns(db, pk, { message_count: s.transcript.length });
  writeContext(db, pk, s.messages);
  for (const c of s.compactions) insertCompaction(db, pk, c);
  for (const change of s.model_changes ?? []) insertModelChange(db, pk, change);
  for (const change of s.agent_changes ?? []) insertAgentChange(db, pk, change);
  for (const kind of CALL_KINDS) {
    const totals = s.usage.by_kind[kind];
    if (totals.calls || totals.prompt_tokens || totals.completion_tokens || totals.cost_usd) addUsage(db, pk, kind, totals, totals.calls);
  }
  if (link) setSessionColumns(db, pk, { spawned_by: link.parentId, spawn_call_id: link.call_id, spawn_agent: link.agent, child_state: link.state });
}

export interface ImportedLink {
  parentId: string;
  call_id: string;
  agent: string;
  state: ChildState;
}

export interface CompactionWrite {
  messages: ChatMessage[];
  compaction: Compaction;
  usage?: CallUsage;
  cut?: number;
  headLength?: number;
  steps?: number;
}

/**
 * The new working context, the compaction record (at the transcript's length now) with
 * its facts, and its usage. With `cut` the start is found from that position (see
 * compactionStart) without reading the transcript.
 */
export function writeCompaction(db: Database.Database, pk: number, c: CompactionWrite): void {
  const before = currentStart(db, pk);
  const headLength = c.headLength ?? 1;
  const start = c.cut === undefined ? null : compactionStart(db, pk, c.messages, c.cut, headLength);
  const startId = start ? insertStart(db, pk, messageCount(db, pk), start) : writeContext(db, pk, c.messages);
  const compactionId = insertCompaction(db, pk, { ...c.compaction, transcript_index: messageCount(db, pk) });
  const carried = headLength > 1 ? c.messages[2] : undefined;
  recordFacts(db, compactionId, {
    summarisedFrom: before.keptFrom,
    keptFrom: currentStart(db, pk).keptFrom,
    steps: c.steps ?? 1,
    carried: carried?.role === 'user' && typeof carried.content === 'string' ? carried.content : null,
    startId,
  });
  if (c.usage) addUsage(db, pk, 'compaction', c.usage, 1);
  setSessionColumns(db, pk, { updated_at: nextUpdateTime(db) });
}

/** Undoes the last compaction (compaction-records.ts); returns the working context it brings back. */
export function undoCompaction(db: Database.Database, pk: number): ChatMessage[] {
  undoLast(db, pk, messageCount(db, pk));
  // A change of the working context as the compaction was: an agent open elsewhere reads it again.
  setSessionColumns(db, pk, { updated_at: nextUpdateTime(db) });
  return readContext(db, pk);
}

/** Makes `model` the session's and records the change; false, recording nothing, when it already is. */
export function changeModel(db: Database.Database, pk: number, model: string): boolean {
  const { model: from } = prepared(db, 'SELECT model FROM sessions WHERE pk = ?').get(pk) as { model: string | null };
  if (from === model) return false;
  setSessionColumns(db, pk, { model });
  insertModelChange(db, pk, { at: new Date().toISOString(), from, to: model, transcript_index: messageCount(db, pk) });
  return true;
}

/** The session's agent from its next turn on, and the change recorded; false, recording nothing, when it already is. */
export function changeAgent(db: Database.Database, pk: number, agent: string): boolean {
  const { agent: from } = prepared(db, 'SELECT agent FROM sessions WHERE pk = ?').get(pk) as { agent: string | null };
  if (from === agent) return false;
  setSessionColumns(db, pk, { agent });
  insertAgentChange(db, pk, { at: new Date().toISOString(), from, to: agent, transcript_index: messageCount(db, pk) });
  return true;
}

/**
 * Records `cwd`; a system prompt other than the context's first message is appended to
 * the transcript (the one it replaces stays there, the record of what the model was told
 * until now) and takes its place in the working context, or leads it.
 */
export function writeProject(db: Database.Database, pk: number, project: { cwd: string; systemPrompt: string }): void {
  // The folder is recorded as the session's cwd and becomes its project folder.
  setSessionColumns(db, pk, { cwd: project.cwd, project_dir: project.cwd });
  const context = readContext(db, pk);
  if (context[0]?.role === 'system' && context[0].content === project.systemPrompt) return;
  const prompt: ChatMessage = { role: 'system', content: project.systemPrompt };
  const seq = messageCount(db, pk);
  insertMessage(db, pk, seq, prompt, { at: new Date().toISOString() });
  setSessionColumns(db, pk, { message_count: seq + 1 });
  writeContext(db, pk, [prompt, ...(context[0]?.role === 'system' ? context.slice(1) : context)]);
}
