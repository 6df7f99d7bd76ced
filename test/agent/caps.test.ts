/**
 * Caps and stops end a turn cleanly: no further request, every tool call answered, the
 * reason shown and audited, and the next message works.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/shared/types';
import { nth } from '../support/elements';
import { makeAgentHarness, type AgentHarness } from './harness';

let h: AgentHarness;
afterEach(async () => {
  await h?.cleanup();
});

/** Every tool_call_id of the context has exactly one result after it. */
function expectEveryCallAnswered(messages: ChatMessage[]): void {
  const calls = messages.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : []));
  const results = messages.flatMap((m) => (m.role === 'tool' ? [m.tool_call_id] : []));
  expect(results.sort()).toEqual(calls.sort());
}

const readCall = (id: string) => ({ id, name: 'read_file', arguments: { path: 'a.txt' } });

describe('--max-turns', () => {
  it('stops after N model requests for one message', async () => {
    h = await makeAgentHarness({ maxTurns: 2 });
    h.write('a.txt', 'a\n');
    h.server.enqueue({ toolCalls: [readCall('t1')] }, { toolCalls: [readCall('t2')] });
    expect(await h.send('loop forever')).toEqual({ error: null });
    expect(h.bodies()).toHaveLength(2);
    expectEveryCallAnswered(h.context());
    expect(h.ofType('notice').at(-1)?.text).toContain('--max-turns (2');
    expect(h.audit().filter((e) => e.event === 'iteration_cap_hit')).toHaveLength(1);

    // The count is per user message: the next message gets its own turns, and a valid context.
    h.script({ text: 'Fine.' });
    expect(await h.send('just answer')).toEqual({ error: null });
    expectEveryCallAnswered(h.bodies()[2].messages);
  });
});

describe('--max-tool-calls', () => {
  it('answers the calls cut from the batch with "Not run" and sends nothing more', async () => {
    h = await makeAgentHarness({ maxToolCalls: 1 });
    h.write('a.txt', 'a\n');
    h.server.enqueue({ toolCalls: [readCall('k1'), readCall('k2'), readCall('k3')] });
    await h.send('read thrice');
    expect(h.bodies()).toHaveLength(1);
    const results = h.context().filter((m) => m.role === 'tool');
    expect(results.map((m) => m.tool_call_id)).toEqual(['k1', 'k2', 'k3']);
    expect(nth(results, 0).content).toContain('<tool_result name="read_file">');
    expect(nth(results, 1).content).toBe('Not run: reached --max-tool-calls (1 tool call in this session).');
    expect(nth(results, 2).content).toBe(nth(results, 1).content);
    expect(h.audit().find((e) => e.event === 'iteration_cap_hit')?.reason).toContain('--max-tool-calls');
  });
});

describe('--max-cost-usd', () => {
  it('stops before the next request once the session has cost the limit', async () => {
    // gpt-4o is priced: 400k prompt tokens cost $1.00.
    h = await makeAgentHarness({ model: 'gpt-4o', maxCostUsd: 1 });
    h.write('a.txt', 'a\n');
    h.server.enqueue({ toolCalls: [readCall('c1')], usage: { prompt_tokens: 400_000, completion_tokens: 0 } });
    await h.send('spend');
    expect(h.bodies()).toHaveLength(1);
    expectEveryCallAnswered(h.context());
    expect(h.store.getUsage(h.sessionId).cost_usd).toBeCloseTo(1, 5);
    expect(h.ofType('notice').at(-1)?.text).toContain('--max-cost-usd');
    expect(h.audit().filter((e) => e.event === 'cost_limit_hit')).toHaveLength(1);
  });

  it('asks for no listing summary once an answer has reached the limit', async () => {
    h = await makeAgentHarness({ model: 'gpt-4o', maxCostUsd: 1 });
    h.server.enqueue({ text: 'An expensive answer.', usage: { prompt_tokens: 400_000, completion_tokens: 0 } });
    expect(await h.send('spend')).toEqual({ error: null });
    expect(h.bodies()).toHaveLength(1);
    expect(h.store.getMeta(h.sessionId).summary).toBeNull();
  });

  it('uses the prices in <data dir>/prices.json, for chat and compaction alike', async () => {
    h = await makeAgentHarness({ maxCostUsd: 1 });
    fs.writeFileSync(path.join(h.dataDir, 'prices.json'), JSON.stringify({ gemma4: { input_per_mtok: 2, output_per_mtok: 0 } }));
    h.reopen();
    h.write('a.txt', 'a\n');
    h.server.enqueue({ toolCalls: [readCall('p1')], usage: { prompt_tokens: 500_000, completion_tokens: 0 } });
    await h.send('spend');
    expect(h.bodies()).toHaveLength(1);
    expect(h.store.getUsage(h.sessionId).by_kind.chat.cost_usd).toBeCloseTo(1, 5);
    expect(h.audit().filter((e) => e.event === 'cost_limit_hit')).toHaveLength(1);

    // Over the limit the next message sends nothing; \compact still runs, and is charged.
    await h.send('more');
    expect(h.bodies()).toHaveLength(1);
    h.server.enqueue({ text: 'Summary of the spending.', usage: { prompt_tokens: 100_000, completion_tokens: 0 } });
    await h.engine.compact(h.sessionId);
    expect(h.store.getUsage(h.sessionId).by_kind.compaction.cost_usd).toBeCloseTo(0.2, 5);
  });

  it('never trips for a free local model', async () => {
    h = await makeAgentHarness({ maxCostUsd: 0 });
    h.script({ text: 'free' });
    expect(await h.send('hi')).toEqual({ error: null });
    expect(h.audit().filter((e) => e.event === 'cost_limit_hit')).toEqual([]);
  });
});

describe('stop', () => {
  it('between tool calls answers the rest with "Not run" and sends nothing more', async () => {
    h = await makeAgentHarness();
    h.onApproval = () => h.engine.stop(h.sessionId);
    h.server.enqueue({
      toolCalls: [
        { id: 's1', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } },
        { id: 's2', name: 'read_file', arguments: { path: 'x.txt' } },
      ],
    });
    expect(await h.send('write then read')).toEqual({ error: null });
    expect(h.bodies()).toHaveLength(1);
    expect(h.read('x.txt')).toBeNull();
    const results = h.context().filter((m) => m.role === 'tool');
    expect(results.map((m) => m.content)).toEqual(['Not run: the turn was stopped by the user.', 'Not run: the turn was stopped by the user.']);
    expect(h.audit().filter((e) => e.event === 'session_abort')).toHaveLength(1);

    h.script({ text: 'Stopped as asked.' });
    await h.send('ok');
    expectEveryCallAnswered(h.bodies()[1].messages);
  });

  it('cancels the model request in flight; what streamed is kept as a stopped reply and the session goes on', async () => {
    h = await makeAgentHarness();
    h.server.enqueue({ text: 'a long reply that never ends', stallAfterChunks: 3, hangMs: 30_000 });
    const turn = h.send('talk');
    await new Promise<void>((resolve) => {
      const off = h.engine.on((e) => {
        if (e.type === 'text') {
          off();
          resolve();
        }
      });
    });
    expect(h.engine.stop(h.sessionId)).toBe(true);
    expect(await turn).toEqual({ error: null });
    expect(h.ofType('notice').at(-1)?.text).toContain('stopped by the user');
    expect(h.context().map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
    expect(h.context().at(-1)).toMatchObject({ content: expect.stringMatching(/^a /), stopped: true });

    h.script({ text: 'Here.' });
    expect(await h.send('again')).toEqual({ error: null });
    expect(h.bodies()[1].messages.map((m: any) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
  });
});

describe('a failing model server', () => {
  it('is retried, each retry shown once in a short line, and the reply then arrives', async () => {
    process.env.LOOM_RETRY_BASE_MS = '1';
    try {
      h = await makeAgentHarness();
    } finally {
      delete process.env.LOOM_RETRY_BASE_MS;
    }
    h.server.enqueue({ status: 503, error: 'warming up' });
    h.script({ text: 'Ready now.' });
    expect(await h.send('hello')).toEqual({ error: null });
    expect(h.ofType('notice').map((e) => e.text)).toEqual([
      `The model server at ${h.server.baseUrl} answered HTTP 503: warming up. Retrying in 1 s (retry 1 of 3).`,
    ]);
    // The same as data, for a window that keeps one line and words it its own way.
    expect(h.ofType('notice').map((e) => e.retry)).toEqual([
      { problem: `The model server at ${h.server.baseUrl} answered HTTP 503: warming up.`, attempt: 1, maxRetries: 3, delayMs: expect.any(Number) },
    ]);
    expect(h.context().at(-1)).toEqual({ role: 'assistant', content: 'Ready now.' });
  });

  it('ends the turn with one clear error; the user message is kept', async () => {
    h = await makeAgentHarness();
    h.server.enqueue({ status: 401, error: 'bad key' });
    const { error } = await h.send('hello');
    expect(error).toContain(h.server.baseUrl);
    expect(error).toContain('--api-key');
    expect(h.ofType('turn').at(-1)).toMatchObject({ phase: 'end', error });
    // The problem and the advice apart, so a window can point at its Settings instead of --api-key.
    const failure = { problem: `The model server at ${h.server.baseUrl} answered HTTP 401: bad key.`, advice: 'check_api_key' };
    expect(h.ofType('turn').at(-1)?.failure).toEqual(failure);
    expect(error).toBe(`${failure.problem} Check --api-key.`);
    expect(h.context().map((m) => m.role)).toEqual(['system', 'user']);
    expect(h.audit().find((e) => e.event === 'llm_call_error')).toMatchObject({ kind: 'chat', error_kind: 'http' });
  });
});
