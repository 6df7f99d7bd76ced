/**
 * Resume after a crash: a tool call the last process started but never answered (killed
 * during the call) would make the next request invalid, since every tool_call_id needs a
 * result. Each one is shown to the user and either run again (after approval) or closed
 * with a synthetic result that says it was interrupted.
 */
import type { ChatMessage, ToolCall } from '../../shared/types';
import type { AgentSession } from './session';
import { RUN_SUBAGENT } from '../../shared/subagents';
import { answerToolCall, plainOutcome, runToolCall } from './tool-runner';

export const INTERRUPTED_RESULT = 'Interrupted: this tool call did not complete (the session was interrupted). It was not re-run.';

/**
 * The calls of the last assistant message that have no result. Only the tail of the
 * context can hold them: the store is append-only and results follow their call at once.
 */
export function findDanglingCalls(messages: readonly ChatMessage[]): ToolCall[] {
  let i = messages.length - 1;
  while (messages[i]?.role === 'tool') i--; // stops before the start: messages[-1] is undefined
  const last = messages[i];
  if (!last || last.role !== 'assistant' || !last.tool_calls?.length) return [];
  const answered = new Set(messages.slice(i + 1).map((m) => (m.role === 'tool' ? m.tool_call_id : '')));
  return last.tool_calls.filter((call) => !answered.has(call.id));
}

/** Returns how many calls were recovered; the session status says 'interrupted' meanwhile. */
export async function recoverInterruptedCalls(session: AgentSession): Promise<number> {
  const dangling = findDanglingCalls(session.messages);
  if (dangling.length === 0) return 0;
  session.store.setStatus(session.id, 'interrupted');
  const signal = session.beginTurn();
  try {
    for (const call of dangling) await recoverCall(session, call, signal);
  } finally {
    session.endTurn();
  }
  session.store.setStatus(session.id, 'active');
  return dangling.length;
}

async function recoverCall(session: AgentSession, call: ToolCall, signal: AbortSignal): Promise<void> {
  const { name, arguments: args } = call.function;
  if (name === RUN_SUBAGENT) return recoverSubagentCall(session, call);
  session.host.emit({
    type: 'notice',
    sessionId: session.id,
    level: 'warning',
    text: `Interrupted tool call from the last run: ${name} ${args}`,
  });
  const again =
    !signal.aborted &&
    (await session.host.approve({
      tool: name,
      effect: session.effectOf(name),
      summary: `Run the interrupted call again: ${name} ${args}`,
      label: 'interrupted tool call',
      preview: null,
      offer: null,
    })) !== 'deny';
  session.audit.write('permission_decision', {
    tool: name,
    decision: again ? 'allow' : 'deny',
    by: 'user',
    label: 'recover interrupted call',
    call_id: call.id,
  });
  await answerToolCall(session, call, () => {
    if (!again) return plainOutcome(INTERRUPTED_RESULT);
    session.toolCalls++;
    // The user's yes counts as the approval the mode would ask for; the hard policy still applies.
    return runToolCall(session, call, signal, { preApproved: true });
  });
}

/**
 * Calls another process left without a result while this one had the session open between
 * its turns (that `loom` was killed mid-tool, docs/DESIGN.md#who-may-change-a-session): closed
 * as interrupted when this process's next turn starts, so its request stays valid. They are
 * not offered to run again: the user has moved on to a new message.
 */
export async function closeForeignDanglingCalls(session: AgentSession): Promise<void> {
  for (const call of findDanglingCalls(session.messages)) {
    if (call.function.name === RUN_SUBAGENT) {
      await recoverSubagentCall(session, call);
      continue;
    }
    session.audit.write('permission_decision', {
      tool: call.function.name,
      decision: 'deny',
      by: 'recovery',
      label: 'call left by another process',
      call_id: call.id,
    });
    await answerToolCall(session, call, () => plainOutcome(INTERRUPTED_RESULT));
  }
}

/**
 * A sub-agent the last process was running (docs/DESIGN.md#sub-agents) is never started
 * again unasked: the call is answered "interrupted", and its child session, kept with what
 * it did, is marked interrupted; the user can resume it on its own.
 */
async function recoverSubagentCall(session: AgentSession, call: ToolCall): Promise<void> {
  const child = session.store.childOfCall(session.id, call.id);
  if (child?.child.state === 'running') session.store.setChildState(child.id, 'interrupted');
  const kept = child ? ` Its session ${child.id} is kept, marked interrupted; it can be resumed on its own.` : '';
  session.host.emit({
    type: 'notice',
    sessionId: session.id,
    level: 'warning',
    text: `Interrupted sub-agent from the last run: ${call.function.arguments}.${kept}`,
  });
  session.audit.write('permission_decision', { tool: call.function.name, decision: 'deny', by: 'recovery', label: 'interrupted sub-agent', call_id: call.id });
  await answerToolCall(session, call, () => plainOutcome(`${INTERRUPTED_RESULT}${kept}`));
}
