/**
 * How stored messages read on screen: without the fences the engine puts around user words
 * and tool results for the model (shared/fences.ts).
 */
import { toolText, userText } from '../../shared/fences';
import type { ChatMessage } from '../../shared/types';

export { toolText, userText };

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
