/**
 * The window suite (docs/DESIGN.md#the-models-window): the scripted server refuses every
 * request over its window with OpenAI's own 400 body, as a real server does. A session
 * several times the window is resumed with the real `loom`: compaction goes in steps that
 * each fit, the turn is answered, and what the refusal taught is kept for the next run.
 */
import { describe, expect, it } from 'vitest';
import { SUMMARY_SYSTEM_PROMPT } from '../../src/core/context/compactor';
import type { ChatMessage } from '../../src/shared/types';
import { nth } from '../support/elements';
import { countRequestTokens, type ScriptedReply } from '../support/scripted-server';
import { inStore, runLoom, useLoomFixture } from './support';

const ctx = useLoomFixture();

const isSummaryRequest = (body: { messages: { content: unknown }[] }) => body.messages[0]?.content === SUMMARY_SYSTEM_PROMPT;
const summaryBodies = () => ctx.server.requests.map((r) => r.body).filter(isSummaryRequest);
const chatBodies = () => ctx.server.requests.map((r) => r.body).filter((b) => b.tools);

/** Answers whatever comes: a deliberately lossy summary, the reply to the turn, a listing title. */
function answerAnything(count = 200): void {
  let summaries = 0;
  const reply: ScriptedReply = {
    respond: (body) => {
      if (isSummaryRequest(body)) return { text: `Summary ${++summaries}: the details were dropped.` };
      return body.tools ? { text: 'Carried on from the summary.' } : { text: 'A title' };
    },
  };
  ctx.server.enqueue(...Array.from({ length: count }, () => reply));
}

/** A long agentic session: `turns` user turns, each with a tool call and a large result. */
function longSession(turns: number, resultChars = 2_000): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: 'You are a coding agent.' }];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: 'user', content: `Step ${i}: look at module ${i} and tell me what it does. ${'Detail. '.repeat(20)}` });
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/m${i}.ts` }) } }],
    });
    messages.push({ role: 'tool', tool_call_id: `call_${i}`, content: `// module ${i}\n${'const x = 1;\n'.repeat(resultChars / 13)}` });
    messages.push({ role: 'assistant', content: `Module ${i} sets x to 1.` });
  }
  return messages;
}

function storeSession(messages: ChatMessage[]): string {
  return inStore(ctx.ws, (store) => store.create({ title: 'Imported long session', model: 'gemma4', messages }).id);
}

const knownWindow = (base: string) =>
  inStore(ctx.ws, (store) => store.db.prepare('SELECT source, tokens FROM model_windows WHERE base_url = ? AND model = ?').all(base, 'gemma4'));

describe('a session several times the model window', () => {
  it('is compacted in steps after the first refusal teaches the window, and the turn is answered', async () => {
    const window = 8_192;
    ctx.server.window = window;
    const id = storeSession(longSession(60));
    answerAnything();

    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--resume', id], 'Carry on.\n');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Assistant: Carried on from the summary.');

    // One refusal: the first, unsized summariser request; it stated the limit.
    expect(ctx.server.refused).toHaveLength(1);
    expect(isSummaryRequest(nth(ctx.server.refused, 0).body)).toBe(true);
    const steps = summaryBodies();
    expect(steps.length).toBeGreaterThan(4);
    for (const body of ctx.server.requests.map((r) => r.body)) expect(countRequestTokens(body)).toBeLessThanOrEqual(window);
    // Each step after the first reads the summary so far, in its boundary, before its slice.
    for (const body of steps.slice(1)) expect(JSON.parse(body.messages[1].content)[0].content).toMatch(/^<session_context_data>\nEarlier conversation summary/);

    expect(knownWindow(ctx.server.baseUrl)).toContainEqual({ source: 'refusal', tokens: window });
    inStore(ctx.ws, (store) => {
      expect(store.getCompactions(id)).toHaveLength(1);
      // Every step was charged; the refused request was not answered and costs nothing.
      expect(store.getUsage(id).by_kind.compaction.calls).toBe(steps.length);
      // The whole transcript stays: 241 messages, the new prompt, the turn's two.
      expect(store.getTranscript(id).length).toBeGreaterThanOrEqual(241 + 2);
    });

    // The next run knows the window: no request is refused again.
    const again = await runLoom(ctx.ws, ctx.server.baseUrl, ['--resume', id], 'And then?\n');
    expect(again.code).toBe(0);
    expect(ctx.server.refused).toHaveLength(1);
    const last = chatBodies().at(-1);
    expect(countRequestTokens(last)).toBeLessThanOrEqual(window);
  });

  it('is compacted in steps from the start when the server lists the window, and none is refused', async () => {
    const window = 8_192;
    ctx.server.window = window;
    ctx.server.models = { ids: ['gemma4'], windows: { gemma4: window } };
    const id = storeSession(longSession(60));
    answerAnything();

    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--resume', id], 'Carry on.\n');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Assistant: Carried on from the summary.');
    expect(ctx.server.refused).toHaveLength(0);
    const tokensToSummarise = longSession(60).reduce((sum, m) => sum + Math.ceil(JSON.stringify(m).length / 4), 0);
    const steps = summaryBodies().length;
    expect(steps).toBeGreaterThan(1);
    expect(steps).toBeLessThanOrEqual(Math.ceil(tokensToSummarise / (window * 0.75)) + 1);
    expect(knownWindow(ctx.server.baseUrl)).toContainEqual({ source: 'server', tokens: window });
  });

  it('a message bigger than the window is shortened for the summariser only, with a marker, and kept whole', async () => {
    ctx.server.window = 8_192;
    ctx.server.models = { ids: ['gemma4'], windows: { gemma4: 8_192 } };
    const messages = longSession(4);
    const huge = `BEGIN-OF-HUGE ${'y'.repeat(200_000)} END-OF-HUGE`;
    messages.splice(3, 1, { role: 'tool', tool_call_id: 'call_0', content: huge });
    const id = storeSession(messages);
    answerAnything();

    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--resume', id], 'Carry on.\n');
    expect(run.code).toBe(0);
    expect(ctx.server.refused).toHaveLength(0);
    const sentToSummariser = summaryBodies()
      .map((b) => b.messages[1].content as string)
      .join('\n');
    expect(sentToSummariser).toContain('BEGIN-OF-HUGE');
    expect(sentToSummariser).toContain('END-OF-HUGE');
    expect(sentToSummariser).toMatch(/\[… \d+ characters not shown to the summariser …\]/);
    inStore(ctx.ws, (store) => expect(store.getTranscript(id).some((m) => m.content === huge)).toBe(true));
  });

  it('a regular request refused as too long teaches the window: the context is compacted to it and asked again', async () => {
    const window = 4_096;
    ctx.server.window = window;
    // About 5,000 tokens: under the 24,000 budget, so nothing is compacted before the first request.
    const id = storeSession(longSession(8, 1_800));
    answerAnything();

    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--resume', id], 'Carry on.\n');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('The model server refused the request as too long for gemma4');
    expect(run.stdout).toContain('Assistant: Carried on from the summary.');
    expect(ctx.server.refused.map((r) => Boolean(r.body.tools))).toEqual([true]);
    expect(summaryBodies().length).toBeGreaterThan(0);
    expect(knownWindow(ctx.server.baseUrl)).toContainEqual({ source: 'refusal', tokens: window });
  });
});
