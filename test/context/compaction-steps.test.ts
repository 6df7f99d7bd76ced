/**
 * Compaction in steps (docs/DESIGN.md#compaction-in-steps): how the part to summarise is
 * sliced, and compactSession over a known window with the real store, client and
 * scripted server: each step's request, the summary carried, a failed step.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compactSession } from '../../src/core/context/auto-compact';
import { ContextBudget } from '../../src/core/context/budget';
import { headAndTail, nextSlice, shortenToFit, sliceRoom } from '../../src/core/context/compaction-steps';
import { SUMMARY_SYSTEM_PROMPT } from '../../src/core/context/compactor';
import { ModelClient } from '../../src/core/model/client';
import { estimateMessageTokens, estimateTotal } from '../../src/core/model/tokens';
import { SessionStore } from '../../src/core/store/session-store';
import type { ChatMessage } from '../../src/shared/types';
import { nth } from '../support/elements';
import { countRequestTokens, startScriptedServer, type ScriptedServer } from '../support/scripted-server';

function agenticTurns(turns: number, resultChars: number): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: 'user', content: `Turn ${i}` });
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: `a${i}`, type: 'function', function: { name: 'grep', arguments: '{"pattern":"x"}' } },
        { id: `b${i}`, type: 'function', function: { name: 'read_file', arguments: '{"path":"y"}' } },
      ],
    });
    messages.push({ role: 'tool', tool_call_id: `a${i}`, content: 'g'.repeat(resultChars) });
    messages.push({ role: 'tool', tool_call_id: `b${i}`, content: 'r'.repeat(resultChars) });
    messages.push({ role: 'assistant', content: `Done ${i}.` });
  }
  return messages;
}

describe('slices', () => {
  it('cover every message once, in order, each within the room, and never part a call from its results', () => {
    const older = agenticTurns(40, 700);
    const room = 1_000;
    const slices: ChatMessage[][] = [];
    for (let at = 0; at < older.length;) {
      const slice = nextSlice(older, at, room);
      expect(slice.end).toBeGreaterThan(at);
      expect(slice.tokens).toBeLessThanOrEqual(room);
      slices.push(slice.messages);
      at = slice.end;
    }
    expect(slices.flat()).toEqual(older);
    for (const slice of slices) {
      expect(nth(slice, 0).role).not.toBe('tool');
      const last = slice.at(-1)!;
      expect(last.role === 'assistant' && last.tool_calls?.length).toBeFalsy();
    }
  });

  it('a step bigger than the room is taken alone and shortened, head and tail kept', () => {
    const older = agenticTurns(2, 40_000);
    const slice = nextSlice(older, 1, 2_000);
    expect(slice.end).toBe(4);
    expect(slice.tokens).toBeLessThanOrEqual(2_000);
    const result = nth(slice.messages, 1).content as string;
    expect(result).toMatch(/^g+\n\[… \d+ characters not shown to the summariser …\]\ng+$/);
    expect(shortenToFit(older.slice(0, 1), 100)).toEqual(older.slice(0, 1));
    expect(headAndTail('short', 10)).toBe('short');
  });

  it('a slice leaves room in the window for the prompt, the summary carried and the reply', () => {
    expect(sliceRoom(32_768, 300)).toBe(24_576);
    expect(sliceRoom(4_096, 1_000)).toBe(4_096 - 1_152 - 1_000);
    expect(sliceRoom(1_000, 5_000)).toBe(256);
  });
});

describe('compactSession over a known window', () => {
  let server: ScriptedServer;
  let dir: string;
  let store: SessionStore;
  let client: ModelClient;
  beforeEach(async () => {
    server = await startScriptedServer();
    client = new ModelClient({ baseUrl: server.baseUrl, apiKey: '', model: 'gemma4', timeoutMs: 5000, maxRetries: 0 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-steps-'));
    store = SessionStore.open(dir);
  });
  afterEach(async () => {
    store.close();
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function session(messages: ChatMessage[]) {
    const { id } = store.create({ model: 'gemma4', messages });
    const budget = new ContextBudget(24_000);
    budget.reset(messages);
    return { id, budget };
  }

  const context = (): ChatMessage[] => [
    { role: 'system', content: 'You are Loom.' },
    ...agenticTurns(30, 1_500),
    { role: 'user', content: 'The current turn.' },
  ];

  it('sends the series request per slice, the summary so far first, and keeps the cut', async () => {
    const messages = context();
    const { id, budget } = session(messages);
    server.window = 4_096;
    let n = 0;
    server.enqueue(...Array.from({ length: 50 }, () => ({ respond: () => ({ text: `summary ${++n}` }) })));

    const outcome = await compactSession({ sessionId: id, store, budget, messages, client, window: 4_096 });
    expect(outcome.status).toBe('compacted');
    if (outcome.status !== 'compacted') return;
    expect(server.refused).toHaveLength(0);
    const bodies = server.requests.map((r) => r.body);
    expect(outcome.steps).toBe(bodies.length);
    expect(bodies.length).toBeGreaterThan(3);
    for (const [i, body] of bodies.entries()) {
      expect(body).toMatchObject({ temperature: 0, max_tokens: 1024 });
      expect(body.messages).toHaveLength(2);
      expect(body.messages[0]).toEqual({ role: 'system', content: SUMMARY_SYSTEM_PROMPT });
      expect(countRequestTokens(body)).toBeLessThanOrEqual(4_096);
      const data = JSON.parse(body.messages[1].content) as ChatMessage[];
      if (i > 0) expect(nth(data, 0).content).toContain(`summary ${i}\n</session_context_data>`);
    }
    // What every step read, in order, is the older part, each message once.
    const read = bodies.flatMap((b, i) => (JSON.parse(b.messages[1].content) as ChatMessage[]).slice(i > 0 ? 1 : 0));
    expect(read).toEqual(messages.slice(1, -1));
    expect(outcome.messages.at(-1)).toEqual({ role: 'user', content: 'The current turn.' });
    expect(nth(outcome.messages, 1).content).toContain(`summary ${bodies.length}`);
    expect(store.getUsage(id).by_kind.compaction.calls).toBe(bodies.length);
    expect(store.getContext(id)).toEqual(outcome.messages);
  });

  it('a failed step leaves the context as it was, and the steps answered are still charged', async () => {
    const messages = context();
    const { id, budget } = session(messages);
    server.enqueue({ text: 'summary 1' }, { text: 'summary 2' }, { status: 500, error: 'the server fell over' });

    const outcome = await compactSession({ sessionId: id, store, budget, messages, client, window: 4_096 });
    expect(outcome).toMatchObject({ status: 'failed', error: expect.stringContaining('the server fell over') });
    expect(store.getContext(id)).toEqual(messages);
    expect(store.getCompactions(id)).toEqual([]);
    expect(store.getUsage(id).by_kind.compaction.calls).toBe(2);
    expect(budget.estimate()).toBe(estimateTotal(messages));
  });

  it('a step refused for size is asked again in smaller slices, and the window it states is reported', async () => {
    const messages = context();
    const { id, budget } = session(messages);
    server.window = 3_000;
    server.enqueue(...Array.from({ length: 50 }, () => ({ text: 'summary' })));
    const learned: number[] = [];

    const outcome = await compactSession({ sessionId: id, store, budget, messages, client, window: 8_192, onWindowLearned: (t) => learned.push(t) });
    expect(outcome.status).toBe('compacted');
    expect(server.refused.length).toBeGreaterThan(0);
    expect(learned[0]).toBe(3_000);
    for (const r of server.requests) expect(countRequestTokens(r.body)).toBeLessThanOrEqual(3_000);
    expect(estimateMessageTokens(nth(outcome.messages, 1))).toBeLessThan(100);
  });
});
