/**
 * The rules a strict OpenAI-compatible server applies to the messages of a request, checked
 * on the working context of an imported session, since that context is what the next
 * request after a resume sends:
 *
 * - a system message only as the first message (Loom replaces it with its own on resume;
 *   one further down would stay in force, so it is refused);
 * - every tool call of an assistant message answered exactly once, by the tool messages
 *   that follow it and come before the next user or assistant message;
 * - no tool message that does not answer a call of that assistant message;
 * - an assistant message has text or tool calls (content null needs calls).
 *
 * A call without a result (the export was taken while a tool ran, or was edited) is
 * repaired the way resume repairs an interrupted call: a result saying it has none is put
 * where its result belongs. Everything else is refused with the offending message's index,
 * since any guess (which result belongs to which call) could put words in a tool's mouth.
 */
import type { AssistantMessage, ChatMessage, ToolCall } from '../../shared/types';

export const NO_RESULT_ON_IMPORT = 'No result: this tool call had no result in the imported session, so Loom closed it on import. It was not run.';

/** One context message that breaks the rules: its index and what is wrong. */
export class ContextRuleError extends Error {
  constructor(
    readonly index: number,
    readonly reason: string,
  ) {
    super(`message ${index}: ${reason}`);
  }
}

export interface CheckedContext {
  messages: ChatMessage[];
  /** How many calls without a result were closed with NO_RESULT_ON_IMPORT. */
  closedCalls: number;
}

/** The context with its unanswered calls closed; ContextRuleError for anything else. */
export function checkContext(messages: readonly ChatMessage[]): CheckedContext {
  const out: ChatMessage[] = [];
  let waiting: ToolCall[] = [];
  let answered = new Set<string>();
  let closedCalls = 0;
  const closeWaiting = () => {
    for (const call of waiting.filter((c) => !answered.has(c.id))) {
      out.push({ role: 'tool', tool_call_id: call.id, content: NO_RESULT_ON_IMPORT });
      closedCalls++;
    }
    waiting = [];
    answered = new Set();
  };

  messages.forEach((message, index) => {
    if (message.role === 'tool') {
      checkResult(message.tool_call_id, waiting, answered, index);
      answered.add(message.tool_call_id);
    } else {
      closeWaiting();
      if (message.role === 'system' && index > 0) {
        throw new ContextRuleError(index, 'a system message after the first message (only the first message may be one)');
      }
      if (message.role === 'assistant') waiting = callsOf(message, index);
    }
    out.push(message);
  });
  closeWaiting();
  return { messages: out, closedCalls };
}

function checkResult(id: string, waiting: readonly ToolCall[], answered: ReadonlySet<string>, index: number): void {
  if (answered.has(id)) throw new ContextRuleError(index, `a second result for tool call ${quoted(id)}`);
  if (!waiting.some((call) => call.id === id)) {
    throw new ContextRuleError(
      index,
      `a tool result for call ${quoted(id)}, which is not a call of the assistant message before it (a result must follow its call, before any other message)`,
    );
  }
}

function callsOf(message: AssistantMessage, index: number): ToolCall[] {
  const calls = message.tool_calls ?? [];
  if (message.content === null && calls.length === 0) throw new ContextRuleError(index, 'an assistant message with neither text nor tool calls');
  const seen = new Set<string>();
  for (const call of calls) {
    if (seen.has(call.id)) throw new ContextRuleError(index, `the assistant message makes two tool calls with the id ${quoted(call.id)}`);
    seen.add(call.id);
  }
  return calls;
}

/** An id as the refusal shows it: quoted and escaped (it is the export's text), and short. */
function quoted(id: string): string {
  const shown = JSON.stringify(id);
  return shown.length > 80 ? `${shown.slice(0, 77)}…"` : shown;
}
