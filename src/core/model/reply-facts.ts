/**
 * The facts Loom records with a model's reply (docs/DESIGN.md#per-message-facts): its model,
 * tokens in and out (estimated where the server reported none), cost, time to the first
 * token and generation speed.
 */
import type { MessageFacts } from '../../shared/types';
import type { ReplyTiming } from './client';
import type { ReplyUsage } from './usage-estimate';

/** Shorter than this from first token to last, a speed would be noise (a reply sent in one piece). */
const MIN_GENERATION_MS = 1;

export function replyFacts(model: string, usage: ReplyUsage, costUsd: number, timing: ReplyTiming): Omit<MessageFacts, 'at'> {
  const facts: Omit<MessageFacts, 'at'> = {
    model,
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    cost_usd: costUsd,
  };
  if (usage.estimated) facts.estimated = true;
  if (timing.latencyMs !== null) facts.latency_ms = Math.round(timing.latencyMs);
  if (timing.generationMs >= MIN_GENERATION_MS && usage.completion_tokens > 0) {
    facts.tokens_per_second = Math.round((usage.completion_tokens / (timing.generationMs / 1000)) * 10) / 10;
  }
  return facts;
}
