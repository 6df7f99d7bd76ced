/** A reply's recorded facts (docs/DESIGN.md#per-message-facts) from its usage, cost and timing. */
import { describe, expect, it } from 'vitest';
import { replyFacts } from '../../src/core/model/reply-facts';

describe('replyFacts', () => {
  it('gives the speed from the first token to the last, and the latency rounded to the millisecond', () => {
    const facts = replyFacts('gpt-4o', { prompt_tokens: 100, completion_tokens: 50, estimated: false }, 0.001, { latencyMs: 312.6, generationMs: 2000 });
    expect(facts).toEqual({ model: 'gpt-4o', prompt_tokens: 100, completion_tokens: 50, cost_usd: 0.001, latency_ms: 313, tokens_per_second: 25 });
  });

  it('says when the tokens are estimated, and leaves out what cannot be measured', () => {
    // One piece (no time between first and last token), and no token at all before the end.
    expect(replyFacts('m', { prompt_tokens: 10, completion_tokens: 5, estimated: true }, 0, { latencyMs: 40, generationMs: 0 })).toEqual({
      model: 'm',
      prompt_tokens: 10,
      completion_tokens: 5,
      cost_usd: 0,
      estimated: true,
      latency_ms: 40,
    });
    expect(replyFacts('m', { prompt_tokens: 10, completion_tokens: 0, estimated: false }, 0, { latencyMs: null, generationMs: 0 })).not.toHaveProperty(
      'latency_ms',
    );
  });
});
