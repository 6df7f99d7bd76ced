import { contentImages, contentText } from '../../shared/attachments';
import type { ChatMessage } from '../../shared/types';

/**
 * Token estimates for when the server does not report usage (docs/DESIGN.md#token-estimates).
 * Characters / 4 needs no tokenizer for whichever model the user runs; it errs high for
 * code, which is the safe side for a budget.
 */
export const CHARS_PER_TOKEN = 4;
/** Role markers and separators the chat template adds around every message. */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/**
 * An attached image, whatever its size: what OpenAI's vision models charge for a picture
 * scaled to 1024×1024 in high detail (four 512-pixel tiles at 170 plus 85). Counting its
 * base64 text instead would make one photo look like a whole context.
 */
export const IMAGE_TOKENS = 765;

export function estimateTextTokens(text: string | null | undefined): number {
  return text ? Math.ceil(text.length / CHARS_PER_TOKEN) : 0;
}

export function estimateMessageTokens(message: ChatMessage): number {
  if (message.role === 'user') {
    return MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(contentText(message.content)) + IMAGE_TOKENS * contentImages(message.content).length;
  }
  let tokens = MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(message.content);
  if (message.role === 'assistant' && message.tool_calls) {
    for (const call of message.tool_calls) {
      tokens += estimateTextTokens(call.function.name) + estimateTextTokens(call.function.arguments);
    }
  }
  return tokens;
}

/** Content, tool-call arguments and per-message overhead of a whole context. */
export function estimateTotal(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}
