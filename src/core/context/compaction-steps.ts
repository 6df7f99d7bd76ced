/**
 * Compaction in steps (docs/DESIGN.md#compaction-in-steps): when the part to summarise does
 * not fit the model's window, the oldest slice that fits is summarised first, then the next
 * slice together with the summary so far, until the cut. Each request is the series' own
 * summariser request; only what it carries is bounded.
 */
import { contentAsText } from '../../shared/attachments';
import type { ChatMessage } from '../../shared/types';
import { windowAfterRefusal } from '../model/context-window';
import { ModelError } from '../model/model-error';
import { CHARS_PER_TOKEN, estimateMessageTokens } from '../model/tokens';
import type { CompactionLimits, CompactionUsage } from './compactor';

/** One summariser request over these messages: its summary (already checked not empty) and usage. */
export type SummaryStep = (older: ChatMessage[]) => Promise<{ summary: string; usage: CompactionUsage }>;

/** Of the window, what one request's data may take: the rest is the prompt, the reply and the estimate's error. */
const DATA_SHARE = 0.75;
/** The summariser's system prompt and the request's framing, by the estimate. */
const SUMMARY_PROMPT_TOKENS = 64;
/** Room kept in every request for the summariser's system prompt and its reply (max_tokens 1024). */
const FIXED_RESERVE = 1024 + 2 * SUMMARY_PROMPT_TOKENS;
/** A refused step is tried again, in smaller slices, this many times at most. */
const MAX_REFUSALS = 3;

export interface StepsOutcome {
  summary: string;
  /** The last step's usage; the earlier ones went to onStepCharged. */
  usage: CompactionUsage;
  steps: number;
}

/**
 * Summarises `older` in one request when the window is unknown (the series' behaviour),
 * else in slices that each fit it. `carry` turns the summary so far into the message the
 * next slice is read after (the boundary message, as a compacted context holds it).
 */
export async function summariseInSteps(
  older: readonly ChatMessage[],
  summarise: SummaryStep,
  limits: CompactionLimits & { carry: (summary: string) => ChatMessage },
): Promise<StepsOutcome> {
  let window = limits.window;
  let refusals = 0;
  let summary: string | null = null;
  let steps = 0;
  let last: CompactionUsage | null = null;
  for (let at = 0; at < older.length;) {
    const carried = summary === null ? [] : [limits.carry(summary)];
    const room = window === null ? Infinity : sliceRoom(window, carriedTokens(carried));
    const slice = nextSlice(older, at, room);
    try {
      const step = await summarise([...carried, ...slice.messages]);
      if (last) limits.onStepCharged?.(last);
      ({ summary, usage: last } = step);
      steps++;
      at = slice.end;
    } catch (err) {
      const overflow = err instanceof ModelError ? err.overflow : undefined;
      if (!overflow || refusals >= MAX_REFUSALS) throw withChargedSteps(err, last, limits);
      refusals++;
      const learned = windowAfterRefusal(overflow, SUMMARY_PROMPT_TOKENS + carriedTokens(carried) + slice.tokens);
      limits.onWindowLearned?.(learned);
      window = window === null ? learned : Math.min(window, learned);
    }
  }
  if (summary === null || last === null) throw new Error('summariseInSteps: nothing to summarise');
  return { summary, usage: last, steps };
}

/** A step failed after others were answered: those are still charged before the error goes on. */
function withChargedSteps(err: unknown, last: CompactionUsage | null, limits: CompactionLimits): unknown {
  if (last) limits.onStepCharged?.(last);
  return err;
}

const MIN_ROOM = 256;

/**
 * What one slice may hold in a request to a window this size, beside the summary it is
 * read after: three quarters of the window, less where a small window needs the room for
 * the prompt, the carried summary and the reply.
 */
export function sliceRoom(window: number, carried: number): number {
  return Math.max(MIN_ROOM, Math.min(Math.floor(window * DATA_SHARE), window - FIXED_RESERVE - carried));
}

function carriedTokens(carried: readonly ChatMessage[]): number {
  return carried.reduce((sum, m) => sum + estimateMessageTokens(m), 0);
}

interface Slice {
  messages: ChatMessage[];
  /** Index in `older` after the slice. */
  end: number;
  tokens: number;
}

/**
 * The longest run of whole steps from `start` that fits `room`: a step is a user message,
 * or an assistant message with the tool results that answer it, so a call is never read
 * without its result. A first step bigger than the room is taken alone, its messages
 * shortened for the summariser.
 */
export function nextSlice(older: readonly ChatMessage[], start: number, room: number): Slice {
  let end = start;
  let tokens = 0;
  while (end < older.length) {
    const stepEnd = endOfStep(older, end);
    const stepTokens = sumTokens(older.slice(end, stepEnd));
    if (end > start && tokens + stepTokens > room) break;
    if (end === start && stepTokens > room) {
      const messages = shortenToFit(older.slice(start, stepEnd), room);
      return { messages, end: stepEnd, tokens: sumTokens(messages) };
    }
    tokens += stepTokens;
    end = stepEnd;
  }
  return { messages: older.slice(start, end), end, tokens };
}

function endOfStep(messages: readonly ChatMessage[], start: number): number {
  let end = start + 1;
  if (messages[start]?.role !== 'assistant') return end;
  while (messages[end]?.role === 'tool') end++;
  return end;
}

function sumTokens(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}

/**
 * Shortens the largest texts of one step until it fits `room`: each keeps its head and
 * tail around a marker that says how much the summariser was not shown. Only the
 * summariser's copy is cut; the transcript and the context keep the message whole.
 */
export function shortenToFit(step: readonly ChatMessage[], room: number): ChatMessage[] {
  let shortened = [...step];
  let share = 1;
  // Each message keeps its share of the room; the markers and per-message overhead can
  // still overshoot a little, so the share shrinks until the step fits.
  for (let attempt = 0; attempt < 5; attempt++) {
    const total = sumTokens(shortened);
    if (total <= room) return shortened;
    share *= (room / total) * 0.95;
    shortened = step.map((m) => shortenMessage(m, Math.max(64, Math.floor(estimateMessageTokens(m) * share * CHARS_PER_TOKEN) - MARKER_ROOM)));
  }
  return shortened;
}

const MARKER_ROOM = 80;

function shortenMessage(message: ChatMessage, keepChars: number): ChatMessage {
  if (message.role === 'user') return { role: 'user', content: headAndTail(contentAsText(message.content), keepChars) };
  if (message.role === 'assistant' && message.tool_calls?.length) {
    const each = Math.max(32, Math.floor(keepChars / (message.tool_calls.length + 1)));
    return {
      ...message,
      content: message.content === null ? null : headAndTail(message.content, each),
      tool_calls: message.tool_calls.map((call) => ({ ...call, function: { ...call.function, arguments: headAndTail(call.function.arguments, each) } })),
    };
  }
  return { ...message, content: headAndTail(message.content ?? '', keepChars) };
}

/** The text's first and last parts around a marker naming what was left out; short text as is. */
export function headAndTail(text: string, keepChars: number): string {
  if (text.length <= keepChars) return text;
  const head = Math.ceil(keepChars * 0.6);
  const tail = Math.max(0, keepChars - head);
  const omitted = text.length - head - tail;
  return `${text.slice(0, head)}\n[… ${omitted} characters not shown to the summariser …]\n${tail ? text.slice(-tail) : ''}`;
}
