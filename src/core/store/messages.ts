import type { ChatMessage, ToolCall } from '../../shared/types';

/**
 * How a chat message is laid out in the messages table: one column per field, so the
 * full-text index reads `content` directly (no second copy of every body) and messages
 * come back in the exact OpenAI chat shape whatever extra fields the caller's object had.
 */
export interface MessageColumns {
  role: ChatMessage['role'];
  content: string | null;
  tool_calls: string | null;
  tool_call_id: string | null;
  /** Tool names and arguments as searchable text; null when there are no tool calls. */
  tool_text: string | null;
  /** 1 for a reply the user stopped (AssistantMessage.stopped). */
  stopped: 0 | 1;
}

export function toColumns(message: ChatMessage): MessageColumns {
  const m = normalizeMessage(message);
  const calls = m.role === 'assistant' ? m.tool_calls : undefined;
  return {
    role: m.role,
    content: m.content,
    tool_calls: calls ? JSON.stringify(calls) : null,
    tool_call_id: m.role === 'tool' ? m.tool_call_id : null,
    tool_text: calls?.length ? calls.map((c) => `${c.function.name} ${c.function.arguments}`).join('\n') : null,
    stopped: message.role === 'assistant' && message.stopped ? 1 : 0,
  };
}

export function fromColumns(row: Pick<MessageColumns, 'role' | 'content' | 'tool_calls' | 'tool_call_id' | 'stopped'>): ChatMessage {
  switch (row.role) {
    case 'assistant': {
      const message: ChatMessage = { role: 'assistant', content: row.content };
      if (row.tool_calls !== null) message.tool_calls = JSON.parse(row.tool_calls) as ToolCall[];
      if (row.stopped) message.stopped = true;
      return message;
    }
    case 'tool':
      return { role: 'tool', tool_call_id: row.tool_call_id ?? '', content: row.content ?? '' };
    default:
      return { role: row.role, content: row.content ?? '' };
  }
}

/** The message with only the fields of the chat format, in a fixed key order. */
function normalizeMessage(message: ChatMessage): ChatMessage {
  switch (message.role) {
    case 'assistant': {
      const out: ChatMessage = { role: 'assistant', content: message.content ?? null };
      if (message.tool_calls) {
        out.tool_calls = message.tool_calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.function.name, arguments: c.function.arguments },
        }));
      }
      return out;
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.tool_call_id, content: message.content };
    default:
      return { role: message.role, content: message.content };
  }
}

/** A stable text form of a message, equal for equal messages. */
function messageKey(message: ChatMessage): string {
  return JSON.stringify(normalizeMessage(message));
}

/** A working-context position: an existing message body by id, or a new message. */
export type ContextEntry = { id: number; message: null } | { id: null; message: ChatMessage };

/**
 * Maps a new working context onto transcript messages it repeats (after a compaction:
 * the system message and the recent turns), so only new messages such as the summary get
 * new bodies. `known` lists transcript messages in order; equal content means same message.
 */
export function linkToTranscript(messages: ChatMessage[], known: Iterable<[id: number, message: ChatMessage]>): ContextEntry[] {
  const idsByKey = new Map<string, number[]>();
  for (const [id, message] of known) {
    const key = messageKey(message);
    const ids = idsByKey.get(key);
    if (ids) ids.push(id);
    else idsByKey.set(key, [id]);
  }
  const used = new Set<number>();
  return messages.map((message) => {
    const ids = idsByKey.get(messageKey(message));
    if (!ids) return { id: null, message };
    // Repeated identical messages keep pointing at their own transcript entries.
    const id = ids.find((i) => !used.has(i)) ?? ids[ids.length - 1];
    used.add(id);
    return { id, message: null };
  });
}
