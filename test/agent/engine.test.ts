/** The engine's own rules, beyond the loop: busy sessions, usage events, unanswerable requests, --tools. */
import { afterEach, describe, expect, it } from 'vitest';
import { LoomEngine, selectTools } from '../../src/core/engine';
import { nth } from '../support/elements';
import { lastMessage, makeAgentHarness, type AgentHarness } from './harness';

let h: AgentHarness;
afterEach(async () => {
  await h?.cleanup();
});

describe('LoomEngine', () => {
  it('refuses a second message while a turn runs, and reports the context state', async () => {
    h = await makeAgentHarness();
    h.server.enqueue({ text: 'slow reply', stallAfterChunks: 2, hangMs: 30_000 });
    const first = h.send('one');
    await h.server.waitForRequests(1);
    expect(h.engine.contextState(h.sessionId).busy).toBe(true);
    await expect(h.send('two')).rejects.toThrow(/still busy/);
    h.engine.stop(h.sessionId);
    await first;
    expect(h.engine.contextState(h.sessionId)).toMatchObject({ busy: false, maxContextTokens: h.config.maxContextTokens });
  });

  it('sends a usage event after every model call', async () => {
    h = await makeAgentHarness();
    h.script({ text: 'Hi.' });
    await h.send('hello');
    const usage = h.ofType('usage');
    expect(usage).toHaveLength(2);
    expect(nth(usage, 1).usage.by_kind.summary.calls).toBe(1);
    expect(nth(usage, 1).contextTokens).toBe(h.engine.contextTokens(h.sessionId));
    // Each change carries the session as it is now: the last one has the label the summary wrote.
    const changes = h.ofType('session_changed');
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.at(-1)!.meta).toEqual(h.store.getMeta(h.sessionId));
  });

  it('treats an approval nobody can answer as a denial', async () => {
    h = await makeAgentHarness();
    const lonely = new LoomEngine({ config: h.config, store: h.store, projectDir: h.projectDir });
    const id = (await lonely.createSession()).id;
    try {
      h.server.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'A' } }] }, { text: 'ok' }, { text: 'label' });
      await lonely.send(id, 'write');
      expect(h.read('a.txt')).toBeNull();
      expect(lastMessage(h.bodies()[1]).content).toMatch(/^Denied by the user/);
    } finally {
      lonely.close();
    }
  });

  it('refuses unknown tool names in --tools', () => {
    expect(() => selectTools(['read_file', 'teleport'])).toThrow(/Unknown tool in --tools: teleport\. Available: read_file/);
    expect(selectTools(undefined).length).toBeGreaterThan(10);
  });
});
