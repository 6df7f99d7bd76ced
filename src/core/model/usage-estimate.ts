import type { AssistantMessage, ChatMessage } from '../../shared/types';
import type { ReportedUsage } from './reply-assembler';
import { estimateMessageTokens, estimateTextTokens, estimateTotal } from './tokens';

export interface ReplyUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** True when any count is our estimate rather than the server's report. */
  estimated: boolean;
}

/**
 * The server's usage where it reported it, an estimate where it did not (some servers never
 * send usage, or send only part of it), so budgets and costs never silently read zero.
 */
export function resolveUsage(
  reported: ReportedUsage | undefined,
  request: { messages: ChatMessage[]; tools?: unknown[] },
  reply: AssistantMessage,
): ReplyUsage {
  const prompt = reported?.prompt_tokens;
  const completion = reported?.completion_tokens;
  return {
    prompt_tokens: prompt ?? estimatePromptTokens(request),
    completion_tokens: completion ?? estimateMessageTokens(reply),
    estimated: prompt === undefined || completion === undefined,
  };
}

function estimatePromptTokens(request: { messages: ChatMessage[]; tools?: unknown[] }): number {
  const tools = request.tools?.length ? estimateTextTokens(JSON.stringify(request.tools)) : 0;
  return estimateTotal(request.messages) + tools;
}
