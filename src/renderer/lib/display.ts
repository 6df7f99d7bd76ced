/**
 * How stored messages read on screen. The engine fences user words and tool results in
 * tags for the model (<user_input>, <tool_result>); the user sees what they typed and
 * what the tool said, without the fences.
 */
import type { ChatMessage } from '../../shared/types';

const USER_FENCE = /^<user_input>\n([\s\S]*)\n<\/user_input>$/;
const TOOL_FENCE = /^<tool_result name="[^"]*">\n([\s\S]*)\n<\/tool_result>$/;
const DEFUSED_TAG = /&lt;(\s*\/?\s*(?:user_input|tool_result|external_document|session_context_data|session_search|session_transcript))(?=[\s/>]|$)/gi;

export function userText(content: string): string {
  const match = USER_FENCE.exec(content);
  return match ? restoreTags(match[1]) : content;
}

export function toolText(content: string): string {
  const match = TOOL_FENCE.exec(content);
  return match ? restoreTags(match[1]) : content;
}

function restoreTags(text: string): string {
  return text.replace(DEFUSED_TAG, '<$1');
}

/** Tool arguments as indented JSON when they parse, as given otherwise. */
export function prettyArguments(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

/** The plain text a message contributes (for titles of cards, copy, tests). */
export function messagePreview(message: ChatMessage): string {
  if (message.role === 'user') return userText(message.content);
  if (message.role === 'tool') return toolText(message.content);
  return message.content ?? '';
}
