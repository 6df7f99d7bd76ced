import { contentImages, contentText, userContent } from '../../shared/attachments';
import type { ChatMessage, MessageFacts, ToolCall } from '../../shared/types';

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
  /**
   * A user message's images as a JSON array of data URLs, null when it has none: `content`
   * keeps its text, so the full-text index never reads image bytes (docs/DESIGN.md#attachments).
   */
  images: string | null;
}

export function toColumns(message: ChatMessage): MessageColumns {
  const m = normalizeMessage(message);
  const calls = m.role === 'assistant' ? m.tool_calls : undefined;
  const images = m.role === 'user' ? contentImages(m.content) : [];
  return {
    role: m.role,
    content: m.role === 'user' ? contentText(m.content) : m.content,
    tool_calls: calls ? JSON.stringify(calls) : null,
    tool_call_id: m.role === 'tool' ? m.tool_call_id : null,
    tool_text: calls?.length ? calls.map((c) => `${c.function.name} ${c.function.arguments}`).join('\n') : null,
    stopped: message.role === 'assistant' && message.stopped ? 1 : 0,
    images: images.length ? JSON.stringify(images) : null,
  };
}

/** `stopped` is absent from rows read before version 4 added it (migration 3), `images` before version 6. */
export function fromColumns(
  row: Pick<MessageColumns, 'role' | 'content' | 'tool_calls' | 'tool_call_id'> & Partial<Pick<MessageColumns, 'stopped' | 'images'>>,
): ChatMessage {
  switch (row.role) {
    case 'assistant': {
      const message: ChatMessage = { role: 'assistant', content: row.content };
      if (row.tool_calls !== null) message.tool_calls = JSON.parse(row.tool_calls) as ToolCall[];
      if (row.stopped) message.stopped = true;
      return message;
    }
    case 'tool':
      return { role: 'tool', tool_call_id: row.tool_call_id ?? '', content: row.content ?? '' };
    case 'user':
      return { role: 'user', content: userContent(row.content ?? '', row.images ? (JSON.parse(row.images) as string[]) : []) };
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
    case 'user':
      // One shape for equal messages: the text, then the images (a plain string without any).
      return { role: 'user', content: userContent(contentText(message.content), contentImages(message.content)) };
    default:
      return { role: message.role, content: message.content };
  }
}

/** A stable text form of a message, equal for equal messages. */
export function messageKey(message: ChatMessage): string {
  return JSON.stringify(normalizeMessage(message));
}

/** The facts column (JSON written by this store) as an object; null for a message without facts. */
export function parseFacts(column: string | null): MessageFacts | null {
  return column === null ? null : (JSON.parse(column) as MessageFacts);
}
