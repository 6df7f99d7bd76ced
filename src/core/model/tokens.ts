import type { ChatMessage } from '../../shared/types';

/**
 * Token estimates for when the server does not report usage (docs/DESIGN.md#token-estimates).
 * Characters / 4 needs no tokenizer for whichever model the user runs; it errs high for
 * code, which is the safe side for a budget.
 */
const CHARS_PER_TOKEN = 4;
/** Role markers and separators the chat template adds around every message. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

export function estimateTextTokens(text: string | null | undefined): number {
  return text ? Math.ceil(text.length / CHARS_PER_TOKEN) : 0;
}

export function estimateMessageTokens(message: ChatMessage): number {
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
