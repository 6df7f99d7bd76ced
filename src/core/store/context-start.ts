import type { ChatMessage } from '../../shared/types';
import { LoomError } from '../errors';
import { fromColumns, messageKey, toColumns } from './messages';

/**
 * How a session's working context is derived from its transcript
 * (docs/DESIGN.md#the-working-context-is-derived). The transcript is the only copy of the
 * messages; a start says where the kept suffix begins and which messages Loom put before it
 * (a compaction's boundary message, a tool result closed on import). The context is
 *
 *   [the transcript's latest system prompt] + head + the suffix from keptFrom, prompts left out
 *
 * where the prompt leads when `withSystem` is set or a prompt was appended after keptFrom
 * (a session opened in a new folder gets its new prompt, as before the tree).
 */
export interface ContextStart {
  /** Transcript position (seq) of the first kept message; the transcript length when none is kept. */
  keptFrom: number;
  withSystem: boolean;
  head: ChatMessage[];
  /** Where the latest prompt before keptFrom is, so reading a context never scans the transcript for it. */
  promptSeq: number | null;
}

/** A session nothing was compacted or replaced in: its transcript is its context. */
export const WHOLE_TRANSCRIPT: ContextStart = { keptFrom: 0, withSystem: true, head: [], promptSeq: null };

/** What derivation reads of a transcript: its latest prompt and its messages from keptFrom. */
export interface TranscriptView {
  latestSystem: ChatMessage | undefined;
  suffix: ChatMessage[];
}

export function deriveContext(start: ContextStart, view: TranscriptView): ChatMessage[] {
  const newPrompt = view.suffix.some((m) => m.role === 'system');
  const lead = view.latestSystem && (start.withSystem || newPrompt) ? [view.latestSystem] : [];
  return [...lead, ...start.head, ...view.suffix.filter((m) => m.role !== 'system')];
}

export function sameMessages(a: readonly ChatMessage[], b: readonly ChatMessage[]): boolean {
  return a.length === b.length && a.every((m, i) => b[i] !== undefined && messageKey(m) === messageKey(b[i]));
}

/**
 * The start that derives exactly `context` from `transcript`, keeping as much of the
 * transcript as possible (a long matching suffix, a short head). When no such shape fits
 * (an imported context unrelated to its transcript), the whole context is the head.
 */
export function startFor(context: ChatMessage[], transcript: ChatMessage[]): ContextStart {
  const head = context.map(normalized);
  const latestSystem = lastSystem(transcript);
  const leadsWithPrompt = latestSystem !== undefined && head[0] !== undefined && messageKey(head[0]) === messageKey(latestSystem);
  const candidates = [...(leadsWithPrompt ? [matchSuffix(head.slice(1), transcript, true)] : []), matchSuffix(head, transcript, false)];
  const fits = candidates.find((start) => sameMessages(derive(start, transcript), head));
  const start = fits ?? { keptFrom: transcript.length, withSystem: false, head, promptSeq: null };
  return { ...start, promptSeq: lastSystemSeq(transcript, start.keptFrom) };
}

export function derive(start: ContextStart, transcript: ChatMessage[]): ChatMessage[] {
  return deriveContext(start, { latestSystem: lastSystem(transcript), suffix: transcript.slice(start.keptFrom) });
}

/** The longest tail of `messages` that is the transcript's tail (prompts skipped); the rest is the head. */
function matchSuffix(messages: ChatMessage[], transcript: ChatMessage[], withSystem: boolean): ContextStart {
  let keptFrom = transcript.length;
  let j = messages.length - 1;
  for (let i = transcript.length - 1; i >= 0; i--) {
    const message = transcript[i];
    const wanted = messages[j];
    if (message === undefined || wanted === undefined) break; // wanted: every message matched
    if (message.role === 'system') continue;
    if (messageKey(message) !== messageKey(wanted)) break;
    keptFrom = i;
    j--;
  }
  return { keptFrom, withSystem, head: messages.slice(0, j + 1), promptSeq: null };
}

function lastSystem(transcript: ChatMessage[]): ChatMessage | undefined {
  return transcript.findLast((m) => m.role === 'system');
}

function lastSystemSeq(transcript: ChatMessage[], before: number): number | null {
  const seq = transcript.slice(0, before).findLastIndex((m) => m.role === 'system');
  return seq < 0 ? null : seq;
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/**
 * The message as the store returns it: chat-format fields only, and lone surrogates as
 * U+FFFD, as SQLite's UTF-8 text makes them in transcript bodies (JSON would keep them,
 * and a model server refuses them). Refuses an unknown role.
 */
export function normalized(message: ChatMessage): ChatMessage {
  if (!ROLES.has(message.role)) throw new LoomError(`A context message has an unknown role "${String(message.role)}".`, 'bad_message');
  return JSON.parse(JSON.stringify(fromColumns(toColumns(message)), wellFormed)) as ChatMessage;
}

function wellFormed(_key: string, value: unknown): unknown {
  return typeof value === 'string' ? value.replace(/\p{Cs}/gu, '\uFFFD') : value;
}
