/**
 * What the user controls of compaction (docs/DESIGN.md#seeing-and-undoing-a-compaction),
 * through the engine with the real store, client and scripted server: a focus, compact up
 * to a message, undo, the record of what each compaction kept and dropped, and pins.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SUMMARY_SYSTEM_PROMPT } from '../../src/core/context/compactor';
import { nth } from '../support/elements';
import { makeAgentHarness, type AgentHarness } from './harness';

let h: AgentHarness;
afterEach(async () => {
  await h?.cleanup();
});

let summaries: string[] = [];

/** Answers whatever comes: the next queued summary, a turn's answer, a listing title. */
function scriptModel(): void {
  const reply = {
    respond: (body: { messages: { content: string }[]; tools?: unknown[] }) => {
      if (nth(body.messages, 0).content.startsWith(SUMMARY_SYSTEM_PROMPT)) return { text: summaries.shift() ?? 'A summary.' };
      if (!body.tools) return { text: 'A title' };
      const asked = /Question (\d+)/.exec(body.messages.at(-1)!.content)?.[1];
      return { text: `Answer ${asked}.` };
    },
  };
  h.server.enqueue(...Array.from({ length: 60 }, () => reply));
}

/** Three answered turns: six messages after the system prompt. */
async function threeTurns(): Promise<void> {
  summaries = [];
  scriptModel();
  for (const n of [1, 2, 3]) await h.send(`Question ${n}: ${'some detail '.repeat(40)}`);
}

describe('compaction the user controls', () => {
  it('a focus is one more sentence of the summariser prompt; the plain compact sends the series prompt', async () => {
    h = await makeAgentHarness();
    await threeTurns();
    summaries = ['Summary with focus.', 'Summary plain.'];
    await h.engine.compact(h.sessionId, { focus: 'the  database\nschema' });
    const withFocus = h.bodies().at(-1);
    expect(withFocus.messages[0].content).toBe(`${SUMMARY_SYSTEM_PROMPT} Above all, keep what concerns: the database schema`);
    await h.send(`Question 4: ${'more detail '.repeat(40)}`);
    await h.engine.compact(h.sessionId);
    expect(h.bodies().at(-1).messages[0].content).toBe(SUMMARY_SYSTEM_PROMPT);
  });

  it('compact up to a message summarises only up to it and keeps the rest as it was', async () => {
    h = await makeAgentHarness();
    await threeTurns();
    const before = h.context();
    summaries = ['Turn one was about a question.'];
    // Transcript message 2 is "Answer 1." (0: the prompt, 1: Question 1).
    await h.engine.compact(h.sessionId, { upTo: 2 });
    const summarised = JSON.parse(h.bodies().at(-1).messages[1].content);
    expect(summarised.map((m: { content: string }) => m.content)).toEqual([nth(before, 1).content, nth(before, 2).content]);
    expect(h.context().slice(2)).toEqual(before.slice(3));

    // Not in the context any more, or the latest turn: one line, nothing changes.
    const now = h.context();
    await expect(h.engine.compact(h.sessionId, { upTo: 1 })).rejects.toThrow(/Message 2 cannot be compacted up to/);
    await expect(h.engine.compact(h.sessionId, { upTo: 6 })).rejects.toThrow(/Message 7 cannot be compacted up to/);
    await expect(h.engine.compact(h.sessionId, { upTo: 999 })).rejects.toThrow(/Message 1000 cannot be compacted up to/);
    expect(h.context()).toEqual(now);
  });

  it('undo brings the previous context back exactly, with what came since, and the record stays, marked undone', async () => {
    h = await makeAgentHarness();
    await threeTurns();
    const before = h.context();
    await h.engine.compact(h.sessionId);
    await h.send('Question 4');
    const since = h.context().slice(-2);

    await h.engine.uncompact(h.sessionId);
    expect(h.context()).toEqual([...before, ...since]);
    expect(h.engine.contextTokens(h.sessionId)).toBeGreaterThan(0);
    const record = nth(h.engine.compactionDetails(h.sessionId), 0);
    expect(record).toMatchObject({ summary: 'A summary.', steps: 1, undoable: false, summarised_from: 0 });
    expect(record.undone_at).toEqual(expect.any(String));
    expect(h.audit().some((e) => e.event === 'context_uncompacted')).toBe(true);
    // The next request sends the context that came back (the harness's budget would compact it: a bigger one).
    h.engine.updateConfig({ maxContextTokens: 100_000 });
    await h.send('Question 5');
    expect(
      h
        .bodies()
        .filter((b) => b.tools)
        .at(-1)
        .messages.slice(1, 7)
        .map((m: { content: string }) => m.content),
    ).toEqual(before.slice(1).map((m) => m.content));

    await expect(h.engine.uncompact(h.sessionId)).rejects.toThrow(/no compaction to undo/);
  });

  it('records what each compaction summarised, carried and took', async () => {
    h = await makeAgentHarness();
    await threeTurns();
    await h.engine.pin(h.sessionId, { note: 'Keep the API stable.' });
    summaries = ['First summary.'];
    await h.engine.compact(h.sessionId);
    const detail = nth(h.engine.compactionDetails(h.sessionId), 0);
    expect(detail).toMatchObject({ summary: 'First summary.', steps: 1, summarised_from: 0, undoable: true, undone_at: null });
    // Kept from "Question 3" (transcript message 5).
    expect(detail.kept_from).toBe(5);
    expect(detail.carried).toContain('(note) Keep the API stable.');
    expect(detail.before_tokens).toBeGreaterThan(detail.after_tokens);
  });

  it('pins a message or a note; unpinning an unknown pin is one line', async () => {
    h = await makeAgentHarness();
    await threeTurns();
    const message = await h.engine.pin(h.sessionId, { seq: 4 });
    expect(message).toMatchObject({ seq: 4, role: 'assistant', text: 'Answer 2.' });
    expect(await h.engine.pin(h.sessionId, { seq: 4 })).toEqual(message);
    const last = await h.engine.pin(h.sessionId, 'last');
    expect(last.text).toBe('Answer 3.');
    // Your own words and a tool's result are pinned as you read them, without Loom's fences.
    expect((await h.engine.pin(h.sessionId, { seq: 1 })).text).toMatch(/^Question 1: some detail/);
    await expect(h.engine.pin(h.sessionId, { seq: 99 })).rejects.toThrow('There is no message 100 to pin: the session has 7.');
    await expect(h.engine.pin(h.sessionId, { note: '   ' })).rejects.toThrow('A pinned note needs some text.');
    await h.engine.unpin(h.sessionId, message.id);
    expect(h.engine.pins(h.sessionId).map((p) => p.text)).toEqual(['Answer 3.', expect.stringMatching(/^Question 1: /)]);
    await expect(h.engine.unpin(h.sessionId, 12345)).rejects.toThrow('This session has no pin 12345.');
  });
});
