import { describe, expect, it } from 'vitest';
import { ContextBudget, estimateTotal } from '../../src/core/context/budget';
import { MESSAGE_OVERHEAD_TOKENS } from '../../src/core/model/tokens';
import type { ChatMessage } from '../../src/shared/types';
import { nth } from '../support/elements';

/** A user message of exactly `tokens` tokens including the per-message overhead. */
function userOfTokens(tokens: number): ChatMessage {
  return { role: 'user', content: 'x'.repeat((tokens - MESSAGE_OVERHEAD_TOKENS) * 4) };
}

function conversation(turns: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: 'You are Loom.' }];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: 'user', content: `Question ${i}: what is in file ${i}.txt?` });
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'read_file', arguments: `{"path":"${i}.txt"}` } }],
    });
    messages.push({ role: 'tool', tool_call_id: `c${i}`, content: `contents of file ${i} `.repeat(i % 7) });
    messages.push({ role: 'assistant', content: `File ${i} holds ${i % 7} lines.` });
  }
  return messages;
}

describe('estimateTotal', () => {
  it('counts content, tool-call name and arguments, and a per-message overhead', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'abcd'.repeat(10) }, // 10 tokens
      { role: 'user', content: 'abc' }, // rounds up to 1
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'a', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }],
      }, // name 9 chars -> 3, arguments 16 chars -> 4
      { role: 'tool', tool_call_id: 'a', content: '' },
    ];
    expect(estimateTotal(messages)).toBe(10 + 1 + 3 + 4 + 4 * MESSAGE_OVERHEAD_TOKENS);
    expect(estimateTotal([])).toBe(0);
  });
});

describe('ContextBudget', () => {
  it('keeps a running total equal to a full recount as messages are appended', () => {
    const messages = conversation(50);
    const budget = new ContextBudget(24000);
    budget.reset(messages.slice(0, 1));
    for (let i = 1; i < messages.length; i++) {
      budget.add(nth(messages, i));
      expect(budget.estimate()).toBe(estimateTotal(messages.slice(0, i + 1)));
    }
    expect(budget.messageCount).toBe(messages.length);
  });

  it('reset() replaces the count with the given context', () => {
    const budget = new ContextBudget(24000);
    budget.reset(conversation(20));
    const compacted = conversation(1);
    budget.reset(compacted);
    expect(budget.estimate()).toBe(estimateTotal(compacted));
  });

  it('does not compact at exactly 80 % and does above it', () => {
    const budget = new ContextBudget(1000);
    budget.reset([userOfTokens(400), userOfTokens(400)]);
    expect(budget.estimate()).toBe(800);
    expect(budget.overThreshold()).toBe(false);
    budget.add(userOfTokens(1 + MESSAGE_OVERHEAD_TOKENS));
    expect(budget.estimate()).toBe(805);
    expect(budget.overThreshold()).toBe(true);
  });

  it('uses the default threshold of 0.8: 19200 of 24000 tokens', () => {
    const budget = new ContextBudget(24000);
    budget.reset([userOfTokens(19200)]);
    expect(budget.overThreshold()).toBe(false);
    budget.reset([userOfTokens(19201)]);
    expect(budget.overThreshold()).toBe(true);
  });

  it('fits() while the estimate is at most the hard budget', () => {
    const budget = new ContextBudget(1000);
    budget.reset([userOfTokens(1000)]);
    expect(budget.fits()).toBe(true);
    budget.add(userOfTokens(MESSAGE_OVERHEAD_TOKENS + 1));
    expect(budget.fits()).toBe(false);
  });

  it("uses the server's prompt_tokens plus the estimate of messages added since", () => {
    const messages = conversation(10);
    const budget = new ContextBudget(24000);
    budget.reset(messages);
    const local = budget.estimate();
    budget.recordServerPromptTokens(local + 300, messages.length);
    expect(budget.estimate()).toBe(local + 300);

    const reply: ChatMessage = { role: 'assistant', content: 'y'.repeat(400) };
    budget.add(reply);
    expect(budget.estimate()).toBe(local + 300 + 100 + MESSAGE_OVERHEAD_TOKENS);
  });

  it('accepts a server figure for a request that preceded the latest appends', () => {
    const messages = conversation(10);
    const budget = new ContextBudget(24000);
    budget.reset(messages);
    const extra: ChatMessage = { role: 'assistant', content: 'z'.repeat(80) };
    budget.add(extra);
    // The request held the first messages.length messages; the reply came after it.
    budget.recordServerPromptTokens(5000, messages.length);
    expect(budget.estimate()).toBe(5000 + 20 + MESSAGE_OVERHEAD_TOKENS);
  });

  it('ignores server figures that cannot describe the context', () => {
    const messages = conversation(30);
    const budget = new ContextBudget(24000);
    budget.reset(messages);
    const local = budget.estimate();
    budget.recordServerPromptTokens(0, messages.length);
    budget.recordServerPromptTokens(Number.NaN, messages.length);
    budget.recordServerPromptTokens(local, messages.length + 1);
    // A count of only the uncached tail of the prompt would hide the real size.
    budget.recordServerPromptTokens(Math.floor(local / 10), messages.length);
    expect(budget.estimate()).toBe(local);
  });

  it('forgets the server figure on reset', () => {
    const messages = conversation(5);
    const budget = new ContextBudget(24000);
    budget.reset(messages);
    budget.recordServerPromptTokens(budget.estimate() * 2, messages.length);
    budget.reset(messages);
    expect(budget.estimate()).toBe(estimateTotal(messages));
  });

  it('refuses a nonsensical budget', () => {
    expect(() => new ContextBudget(0)).toThrow(RangeError);
    expect(() => new ContextBudget(1000, 1.5)).toThrow(RangeError);
  });
});
