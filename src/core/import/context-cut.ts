/**
 * An imported message too long for any model's context (a 100 MB tool output another agent
 * kept) is cut for the working context, with a marker saying so, and kept whole in the
 * transcript, the record (docs/DESIGN.md#importing-from-other-agents). Without the cut the
 * session could never be resumed: no request carrying it fits, and neither does the
 * summariser's request that would compact it away.
 */
import type { ChatMessage } from '../../shared/types';
import { messageKey } from '../store/messages';
import { MAX_TOOL_RESULT_CHARS } from '../tools/result';

/** The most an imported message's text keeps in the context: what Loom keeps of one tool result of its own. */
const MAX_IMPORTED_CONTEXT_CHARS = MAX_TOOL_RESULT_CHARS;

/** The text as the context keeps it: whole when short enough, else its start and a marker. */
export function cutForContext(text: string): string {
  if (text.length <= MAX_IMPORTED_CONTEXT_CHARS) return text;
  let head = text.slice(0, MAX_IMPORTED_CONTEXT_CHARS);
  // Never leave half of a surrogate pair at the cut.
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  const total = text.length.toLocaleString('en');
  return `${head}\n[Cut on import: the first ${head.length.toLocaleString('en')} of ${total} characters; the transcript keeps the whole message.]`;
}

/** Whether the message's text is longer than the context keeps. */
function tooLongForContext(message: ChatMessage): boolean {
  const content = message.content;
  return typeof content === 'string' && content.length > MAX_IMPORTED_CONTEXT_CHARS;
}

/** `context` with each message that has a cut copy replaced by it (cut copies are keyed by the whole message). */
export function withCutCopies(context: readonly ChatMessage[], cuts: ReadonlyMap<string, ChatMessage>): ChatMessage[] {
  return context.map((message) => (tooLongForContext(message) ? (cuts.get(messageKey(message)) ?? message) : message));
}
