/**
 * The agent loop for one user message: append it, then ask the model, run every tool call
 * it makes, append each result, and ask again until a reply has no tool calls, a cap is
 * reached or the user stops. Every message is committed to the store as it is produced,
 * and every tool call always gets a result, so the context is valid whenever it stops.
 */
import type { AssistantMessage, ToolCall } from '../../shared/types';
import { errorMessage } from '../errors';
import { reportStop, stopBeforeRequest, stopBeforeTool, type TurnStop } from './caps';
import { fitContext } from './context-guard';
import { refreshListingSummary } from './listing-summary';
import { callModel, isAbort, retryNoticeText } from './model-call';
import type { AgentSession } from './session';
import { answerToolCall, notRunResult, plainOutcome, runToolCall, STOPPED_REASON } from './tool-runner';
import { wrapUserInput } from './untrusted';

/** Sent when the model answers with nothing at all; bounded so a silent model cannot loop. */
const CONTINUE_NUDGE = 'Continue.';
const MAX_EMPTY_NUDGES = 2;

export interface TurnOutcome {
  /** One line for the user when the turn failed (model down, context too large). */
  error?: string;
}

export async function runUserTurn(session: AgentSession, text: string): Promise<TurnOutcome> {
  const signal = session.beginTurn();
  session.host.emit({ type: 'turn', sessionId: session.id, phase: 'start' });
  let error: string | undefined;
  try {
    session.userTurns++;
    session.audit.write('user_message', { text });
    session.append({ role: 'user', content: wrapUserInput(text) });
    if ((await runUntilDone(session, signal)) === 'answered') await refreshListingSummary(session, signal);
  } catch (err) {
    if (isAbort(err, signal)) reportStop(session, { event: 'session_abort', reason: STOPPED_REASON });
    else error = errorMessage(err);
  } finally {
    session.endTurn();
    session.host.emit({ type: 'turn', sessionId: session.id, phase: 'end', ...(error ? { error } : {}) });
  }
  return error ? { error } : {};
}

async function runUntilDone(session: AgentSession, signal: AbortSignal): Promise<'answered' | 'stopped'> {
  let requests = 0;
  let nudges = 0;
  for (;;) {
    const stop = stopBeforeRequest(session, requests, signal);
    if (stop) return stopped(session, stop);
    await fitContext(session, signal);
    const reply = await requestReply(session, signal);
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

async function requestReply(session: AgentSession, signal: AbortSignal): Promise<AssistantMessage> {
  const result = await callModel(session, 'chat', {
    messages: [...session.messages],
    tools: session.toolSpecs,
    timeoutMs: session.config.llmTimeoutSec * 1000,
    signal,
    onText: (delta) => session.host.emit({ type: 'text', sessionId: session.id, delta }),
    onRetry: (notice) => session.host.emit({ type: 'notice', sessionId: session.id, level: 'info', text: retryNoticeText(notice) }),
  });
  const { content, tool_calls } = result.message;
  // An empty reply is stored as '' (not null without tool calls, which some servers reject).
  const reply: AssistantMessage = tool_calls?.length ? { role: 'assistant', content, tool_calls } : { role: 'assistant', content: content ?? '' };
  session.append(reply);
  return reply;
}

/** Runs the calls in order; once a cap or a stop cuts the batch, the rest get "Not run". */
async function runToolBatch(session: AgentSession, calls: ToolCall[], signal: AbortSignal): Promise<TurnStop | null> {
  let cut: TurnStop | null = null;
  for (const call of calls) {
    const stop = (cut ??= stopBeforeTool(session, signal));
    await answerToolCall(session, call, () => {
      if (stop) return plainOutcome(notRunResult(stop.reason));
      session.toolCalls++;
      return runToolCall(session, call, signal);
    });
  }
  return cut ?? (signal.aborted ? { event: 'session_abort', reason: STOPPED_REASON } : null);
}

function stopped(session: AgentSession, stop: TurnStop): 'stopped' {
  reportStop(session, stop);
  return 'stopped';
}

/**
 * A turn answering the user message the context already ends with (a branch made by edit
 * or regenerate, docs/DESIGN.md "Branches"): nothing is appended before the request, so
 * the request ends with that user message.
 */
export async function runReplyTurn(session: AgentSession): Promise<TurnOutcome> {
  const signal = session.beginTurn();
  session.host.emit({ type: 'turn', sessionId: session.id, phase: 'start' });
  let error: string | undefined;
  try {
    session.userTurns++;
    if ((await runUntilDone(session, signal)) === 'answered') await refreshListingSummary(session, signal);
  } catch (err) {
    if (isAbort(err, signal)) reportStop(session, { event: 'session_abort', reason: STOPPED_REASON });
    else error = errorMessage(err);
  } finally {
    session.endTurn();
    session.host.emit({ type: 'turn', sessionId: session.id, phase: 'end', ...(error ? { error } : {}) });
  }
  return error ? { error } : {};
}
