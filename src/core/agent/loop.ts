/**
 * The agent loop for one user message: append it, then ask the model, run every tool call
 * it makes, append each result, and ask again until a reply has no tool calls, a cap is
 * reached or the user stops. Every message is committed to the store as it is produced,
 * and every tool call always gets a result, so the context is valid whenever it stops.
 */
import type { Attachment } from '../../shared/attachments';
import type { ModelFailure } from '../../shared/model-failure';
import type { AssistantMessage, ToolCall, UserMessage } from '../../shared/types';
import { errorMessage } from '../errors';
import { windowAfterRefusal } from '../model/context-window';
import { ModelError } from '../model/model-error';
import { replyFacts } from '../model/reply-facts';
import { messageKey } from '../store/messages';
import { reportStop, stopBeforeRequest, stopBeforeTool, type TurnStop } from './caps';
import { fitContext } from './context-guard';
import { closeForeignDanglingCalls } from './recovery';
import { refreshListingSummary } from './listing-summary';
import { callModel, isAbort, retryNotice } from './model-call';
import type { AgentSession } from './session';
import { describeAttachments } from './user-message';
import { answerToolCall, answerToolCallsTogether, notRunResult, plainOutcome, runToolCall, STOPPED_REASON } from './tool-runner';
import { RUN_SUBAGENT } from '../../shared/subagents';

/** Sent when the model answers with nothing at all; bounded so a silent model cannot loop. */
const CONTINUE_NUDGE = 'Continue.';
const MAX_EMPTY_NUDGES = 2;

export interface TurnOutcome {
  /** One line for the user when the turn failed (model down, context too large). */
  error?: string;
  /** When it failed on a model request: the problem and the advice apart, for a window to word (shared/model-failure.ts). */
  failure?: ModelFailure;
}

/** `message`: built by buildUserMessage (user-message.ts) from `text` and `attachments`, checked before the turn. */
export function runUserTurn(session: AgentSession, message: UserMessage, text: string, attachments: readonly Attachment[] = []): Promise<TurnOutcome> {
  return runTurn(session, () => {
    const resend = isUnansweredRepeat(session, message);
    const files = attachments.length ? { attachments: describeAttachments(attachments) } : {};
    session.audit.write('user_message', { text, ...files, ...(resend ? { resend } : {}) });
    if (!resend) session.append(message);
  });
}

/**
 * One turn: `prepare` puts the user's message in place (or nothing, for a reply turn), then
 * the model and tools run until the turn is answered, stopped or fails. The turn's end is
 * emitted before the listing label is written, in the background, so the label never keeps
 * the session busy: the next message goes through at once and cancels it (it is due again
 * at a later turn).
 */
async function runTurn(session: AgentSession, prepare: () => void): Promise<TurnOutcome> {
  const signal = session.beginTurn();
  session.host.emit({ type: 'turn', sessionId: session.id, phase: 'start' });
  let error: string | undefined;
  let failure: ModelFailure | undefined;
  let answered = false;
  try {
    session.userTurns++;
    await closeForeignDanglingCalls(session);
    prepare();
    answered = (await runUntilDone(session, signal)) === 'answered';
  } catch (err) {
    if (isAbort(err, signal)) reportStop(session, { event: 'session_abort', reason: STOPPED_REASON });
    else {
      error = errorMessage(err);
      failure = (err instanceof ModelError && err.failure) || undefined;
    }
  } finally {
    error ??= keepStoppedReply(session, signal);
    session.endTurn();
    session.host.emit({ type: 'turn', sessionId: session.id, phase: 'end', ...(error ? { error } : {}), ...(failure ? { failure } : {}) });
  }
  if (answered && !session.isChild) session.runInBackground((summarySignal) => refreshListingSummary(session, summarySignal));
  return { ...(error ? { error } : {}), ...(failure ? { failure } : {}) };
}

/**
 * True when this very message is the last one the user sent and no reply answered it yet
 * (only tool calls and their results, if anything, came after it): a request failed and
 * the window put the text back, so sending it again is a retry. The context is asked again
 * as it stands, the message not appended a second time.
 */
function isUnansweredRepeat(session: AgentSession, message: UserMessage): boolean {
  // The latest user message or reply, whichever came last.
  const last = session.messages.findLast((m) => m.role === 'user' || (m.role === 'assistant' && !m.tool_calls?.length));
  return last?.role === 'user' && messageKey(last) === messageKey(message);
}

async function runUntilDone(session: AgentSession, signal: AbortSignal): Promise<'answered' | 'stopped'> {
  let requests = 0;
  let nudges = 0;
  for (;;) {
    const stop = stopBeforeRequest(session, requests, signal);
    if (stop) return stopped(session, stop);
    await fitContext(session, signal);
    const reply = await requestWithinWindow(session, signal);
    requests++;
    if (reply.tool_calls?.length) {
      const cut = await runToolBatch(session, reply.tool_calls, signal);
      if (cut) return stopped(session, cut);
    } else if (reply.content) {
      return 'answered';
    } else if (nudges < MAX_EMPTY_NUDGES) {
      nudges++;
      session.append({ role: 'user', content: CONTINUE_NUDGE });
    } else {
      session.host.emit({ type: 'notice', sessionId: session.id, level: 'warning', text: 'The model kept replying with nothing; the turn ended.' });
      return 'stopped';
    }
  }
}

/**
 * A request the server refused as too big for the model teaches the model's window
 * (remembered per server and model): the context is fitted to it, compacted if need be,
 * and asked once more. A second refusal is the turn's error.
 */
async function requestWithinWindow(session: AgentSession, signal: AbortSignal): Promise<AssistantMessage> {
  try {
    return await requestReply(session, signal);
  } catch (err) {
    const overflow = err instanceof ModelError ? err.overflow : undefined;
    if (!overflow) throw err;
    const learned = windowAfterRefusal(overflow, session.budget.estimate());
    session.learnWindow(learned);
    session.host.emit({
      type: 'notice',
      sessionId: session.id,
      level: 'info',
      text: `The model server refused the request as too long for ${session.client.settings.model}; Loom now keeps its context within ${session.budget.maxTokens.toLocaleString('en-US')} tokens and asks again.`,
    });
    await fitContext(session, signal);
    return requestReply(session, signal);
  }
}

async function requestReply(session: AgentSession, signal: AbortSignal): Promise<AssistantMessage> {
  session.replyInFlight = '';
  const model = session.client.settings.model;
  const result = await callModel(session, 'chat', {
    messages: [...session.messages],
    tools: session.toolSpecs,
    timeoutMs: session.config.llmTimeoutSec * 1000,
    signal,
    onText: (delta) => {
      const at = session.replyInFlight.length;
      session.replyInFlight += delta;
      session.host.emit({ type: 'text', sessionId: session.id, delta, at });
    },
    onRetry: (notice) => session.host.emit({ type: 'notice', sessionId: session.id, level: 'info', ...retryNotice(notice) }),
  });
  // Kept only while the reply is in flight: the whole reply is committed below.
  session.replyInFlight = '';
  const { content, tool_calls } = result.message;
  // An empty reply is stored as '' (not null without tool calls, which some servers reject).
  const reply: AssistantMessage = tool_calls?.length ? { role: 'assistant', content, tool_calls } : { role: 'assistant', content: content ?? '' };
  session.append(reply, replyFacts(model, result.usage, result.charged.cost_usd, result.timing));
  return reply;
}

/**
 * When the user stopped the turn during a reply, or before any (a compaction, a retry's
 * wait), what streamed is kept as a reply marked as stopped, possibly empty: the user can
 * read and continue it, and the next user message never follows theirs unanswered.
 * Returns why it could not be kept, if it could not.
 */
function keepStoppedReply(session: AgentSession, signal: AbortSignal): string | undefined {
  const streamed = session.replyInFlight;
  session.replyInFlight = '';
  if (!signal.aborted || (!streamed && session.messages.at(-1)?.role !== 'user')) return undefined;
  try {
    session.append({ role: 'assistant', content: streamed, stopped: true }, { model: session.client.settings.model });
    return undefined;
  } catch (err) {
    return errorMessage(err);
  }
}

/**
 * Runs the calls in order; run_subagent calls next to each other run at the same time
 * (docs/DESIGN.md#sub-agents), their results still in call order. Once a cap or a stop cuts
 * the batch, the rest get "Not run".
 */
async function runToolBatch(session: AgentSession, calls: ToolCall[], signal: AbortSignal): Promise<TurnStop | null> {
  let cut: TurnStop | null = null;
  const outcomeOf = (call: ToolCall) => {
    const stop = (cut ??= stopBeforeTool(session, signal));
    if (stop) return plainOutcome(notRunResult(stop.reason));
    session.toolCalls++;
    return runToolCall(session, call, signal);
  };
  for (let i = 0; i < calls.length;) {
    const together = subagentCallsFrom(calls, i);
    if (together.length > 1) {
      await answerToolCallsTogether(session, together, session.subagents?.maxParallel() ?? 1, async (call) => outcomeOf(call));
      i += together.length;
    } else {
      const call = calls[i++]!;
      await answerToolCall(session, call, () => outcomeOf(call));
    }
  }
  return cut ?? (signal.aborted ? { event: 'session_abort', reason: STOPPED_REASON } : null);
}

/** The run_subagent calls from `start` on, up to the first call of another tool. */
function subagentCallsFrom(calls: readonly ToolCall[], start: number): ToolCall[] {
  const end = calls.findIndex((call, i) => i >= start && call.function.name !== RUN_SUBAGENT);
  return calls.slice(start, end === -1 ? calls.length : end);
}

function stopped(session: AgentSession, stop: TurnStop): 'stopped' {
  reportStop(session, stop);
  return 'stopped';
}

/**
 * A turn answering the user message the context already ends with (a branch made by edit
 * or regenerate, docs/DESIGN.md#branches-in-the-ui): nothing is appended before the request, so
 * the request ends with that user message.
 */
export function runReplyTurn(session: AgentSession): Promise<TurnOutcome> {
  return runTurn(session, () => {});
}
