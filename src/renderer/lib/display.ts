/**
 * How stored messages read on screen. The engine fences user words and tool results in
 * tags for the model (<user_input>, <tool_result>); the user sees what they typed and
 * what the tool said, without the fences.
 */
import { contentImages, contentText } from '../../shared/attachments';
import type { ChatMessage, UserMessage } from '../../shared/types';

const USER_FENCE = /^<user_input>\n([\s\S]*?)\n<\/user_input>(?=\n\n<attached_file |$)/;
/** An attached text file's fence (docs/DESIGN.md#attachments); its content cannot hold the closing tag (defused). */
const FILE_FENCE = /<attached_file name="([^"]*)">\n([\s\S]*?)\n<\/attached_file>/g;
const TOOL_FENCE = /^<tool_result name="[^"]*">\n([\s\S]*)\n<\/tool_result>$/;
const DEFUSED_TAG =
  /&lt;(\s*\/?\s*(?:user_input|attached_file|tool_result|external_document|session_context_data|session_search|session_transcript))(?=[\s/>]|$)/gi;

/** A text file attached to a user message, as the user attached it. */
export interface AttachedFile {
  name: string;
  text: string;
}

/** What the user sent: their words, the text files and the images they attached. */
export interface UserParts {
  text: string;
  files: AttachedFile[];
  images: string[];
}

export function userParts(content: UserMessage['content']): UserParts {
  const raw = contentText(content);
  const files = [...raw.matchAll(FILE_FENCE)].map((m) => ({ name: unescapeAttribute(m[1]), text: restoreTags(m[2]) }));
  const words = USER_FENCE.exec(raw);
  const text = words ? restoreTags(words[1]) : files.length ? '' : raw;
  return { text, files, images: contentImages(content) };
}

export function userText(content: UserMessage['content']): string {
  return userParts(content).text;
}

/** The inverse of the engine's escapeAttribute for a file name (quotes and angle brackets). */
function unescapeAttribute(value: string): string {
  return value.replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
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
