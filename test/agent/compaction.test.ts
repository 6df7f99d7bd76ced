/**
 * The loop calls auto-compaction before every regular request, \compact forces it, and a
 * context that cannot fit stops the turn before anything is sent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SUMMARY_SYSTEM_PROMPT } from '../../src/core/context/compactor';
import { BOUNDARY_OPEN } from '../../src/core/context/data-fence';
import { nth } from '../support/elements';
import { makeAgentHarness, type AgentHarness } from './harness';

let h: AgentHarness;
afterEach(async () => {
  await h?.cleanup();
});

const LONG = 'x'.repeat(8000);

/** One long exchange, then a budget the context is well over 80 % of but fits after compaction. */
async function overThreshold(h: AgentHarness): Promise<void> {
  h.script({ text: 'Noted.' });
  await h.send(`Remember this: ${LONG}`);
  h.engine.updateConfig({ maxContextTokens: Math.floor(h.engine.contextTokens(h.sessionId) / 0.9) });
}

describe('auto-compaction', () => {
  it('compacts before the request when over the threshold, then sends the compacted context', async () => {
    h = await makeAgentHarness();
    await overThreshold(h);
    h.server.enqueue({ text: 'The user asked to remember a long string of x.' }, { text: 'Sure.' });
    expect(await h.send('next question')).toEqual({ error: null });

    const [, , compaction, chat] = h.bodies();
    expect(compaction.messages[0]).toEqual({ role: 'system', content: SUMMARY_SYSTEM_PROMPT });
    expect(chat.messages.map((m: any) => m.role)).toEqual(['system', 'user', 'user']);
    expect(chat.messages[1].content.startsWith(BOUNDARY_OPEN)).toBe(true);
    expect(chat.messages[2].content).toContain('next question');

    expect(h.store.getCompactions(h.sessionId)).toHaveLength(1);
    expect(h.store.getUsage(h.sessionId).by_kind.compaction.calls).toBe(1);
    expect(h.ofType('compaction').map((e) => e.phase)).toEqual(['start', 'done']);
    expect(h.audit().find((e) => e.event === 'context_compacted')).toMatchObject({ trigger: 'auto' });
    // The transcript keeps everything.
    expect(h.store.getTranscript(h.sessionId).some((m) => (m.content as string | null)?.includes(LONG))).toBe(true);
  });

  it('does not compact at or below the threshold', async () => {
    h = await makeAgentHarness();
    h.script({ text: 'one' });
    await h.send('first');
    h.server.enqueue({ text: 'two' });
    await h.send('second');
    expect(h.bodies().some((b) => b.messages[0].content === SUMMARY_SYSTEM_PROMPT)).toBe(false);
    expect(h.ofType('compaction')).toEqual([]);
  });

  it('stops before sending when the context cannot fit even after compaction', async () => {
    h = await makeAgentHarness({ maxContextTokens: 1000 });
    const { error } = await h.send(`Too long: ${LONG}`);
    expect(error).toContain('--max-context-tokens 1000');
    expect(h.bodies()).toEqual([]);
    expect(h.context().at(-1)?.content).toContain('Too long');
  });
});

describe('\\compact (engine.compact)', () => {
  it('compacts now and reports the tokens before and after', async () => {
    h = await makeAgentHarness();
    h.script({ text: 'Noted.' });
    await h.send(`Remember this: ${LONG}`);
    h.script({ text: 'Fine.' });
    await h.send('and this');
    h.server.enqueue({ text: 'Earlier: the user gave a long string.' });
    const result = await h.engine.compact(h.sessionId);
    expect(result.after_tokens).toBeLessThan(result.before_tokens);
    expect(h.engine.contextTokens(h.sessionId)).toBeLessThan(result.before_tokens);
    expect((nth(h.context(), 1).content as string).startsWith(BOUNDARY_OPEN)).toBe(true);
  });

  it('says when nothing is old enough and changes nothing', async () => {
    h = await makeAgentHarness();
    h.script({ text: 'Hi.' });
    await h.send('only turn');
    const before = h.context();
    await expect(h.engine.compact(h.sessionId)).rejects.toThrow(/Nothing to compact/);
    expect(h.context()).toEqual(before);
  });
});
