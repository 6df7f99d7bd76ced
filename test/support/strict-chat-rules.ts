/**
 * What a strict OpenAI-compatible server refuses in a chat-completions request body, written
 * for the tests independently of Loom's own import checks (src/core/store/context-rules.ts),
 * so that a mistake there cannot hide here:
 *
 * - one system message at most, and only as the first message;
 * - each message has exactly its role's fields; strings are well-formed Unicode;
 * - an assistant message has text or tool calls; a tool_calls list is not empty, and its
 *   ids are non-empty and distinct;
 * - after an assistant message with tool calls, the next messages are tool messages
 *   answering each of those calls exactly once, before any other message and before the end;
 * - a tool message answers a call of the assistant message just before its group.
 *
 *   expect(strictChatViolations(server.requests[0].body)).toEqual([]);
 */

const FIELDS: Record<string, string[]> = {
  system: ['role', 'content'],
  user: ['role', 'content'],
  assistant: ['role', 'content', 'tool_calls'],
  tool: ['role', 'tool_call_id', 'content'],
};

/** A strict JSON parser (serde, Go) refuses text that is not well-formed UTF-16. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Every rule the request body breaks, one line each, naming the message index. */
export function strictChatViolations(body: any): string[] {
  const problems: string[] = [];
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  if (messages.length === 0) return ['messages: missing or empty'];
  let open: string[] = [];
  let openedAt = -1;
  messages.forEach((m, i) => {
    const at = `messages[${i}]`;
    const fields = FIELDS[m?.role];
    if (!fields) return void problems.push(`${at}: unknown role ${JSON.stringify(m?.role)}`);
    const extra = Object.keys(m).filter((k) => !fields.includes(k));
    if (extra.length) problems.push(`${at}: unexpected field(s) ${extra.join(', ')}`);
    if (stringsOf(m).some((text) => LONE_SURROGATE.test(text))) problems.push(`${at}: a string with a lone surrogate`);

    if (m.role === 'tool') {
      if (!open.includes(m.tool_call_id))
        problems.push(`${at}: tool result for "${m.tool_call_id}", which no pending call of the assistant message at ${openedAt} made`);
      open = open.filter((id) => id !== m.tool_call_id);
      return;
    }
    if (open.length) problems.push(`${at}: a ${m.role} message while call(s) ${open.join(', ')} of messages[${openedAt}] have no result`);
    open = [];
    if (typeof m.content !== 'string' && !(m.role === 'assistant' && m.content === null)) problems.push(`${at}: content must be a string`);
    if (m.role === 'system' && i > 0) problems.push(`${at}: a system message after the first message`);
    if (m.role === 'assistant') {
      open = callIds(m, at, problems);
      openedAt = i;
    }
  });
  if (open.length) problems.push(`end: call(s) ${open.join(', ')} of messages[${openedAt}] have no result`);
  return problems;
}

function callIds(m: any, at: string, problems: string[]): string[] {
  if (m.tool_calls === undefined) {
    if (m.content === null) problems.push(`${at}: an assistant message with neither content nor tool_calls`);
    return [];
  }
  if (!Array.isArray(m.tool_calls) || m.tool_calls.length === 0) {
    problems.push(`${at}: tool_calls must be a non-empty array`);
    return [];
  }
  const ids: string[] = [];
  for (const call of m.tool_calls) {
    const ok =
      typeof call?.id === 'string' &&
      call.id !== '' &&
      call.type === 'function' &&
      typeof call.function?.name === 'string' &&
      call.function.name !== '' &&
      typeof call.function.arguments === 'string';
    if (!ok) problems.push(`${at}: a malformed tool call ${JSON.stringify(call)}`);
    else if (ids.includes(call.id)) problems.push(`${at}: tool call id "${call.id}" used twice`);
    else ids.push(call.id);
  }
  return ids;
}

function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsOf);
  return [];
}
