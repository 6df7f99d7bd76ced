/**
 * A model chosen per session (docs/DESIGN.md#session-model) and the facts recorded with each
 * message (docs/DESIGN.md#per-message-facts), with the real client against the scripted server.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importFiles, runImport } from '../../src/core/import/run';
import { CLAUDE_SESSION, claudeMain, jsonl, writeFile } from '../import/fixtures';
import { SessionStore } from '../../src/core/store/session-store';
import { makeAgentHarness, type AgentHarness } from './harness';

let h: AgentHarness;
afterEach(async () => {
  await h?.cleanup();
});

const chatModels = () =>
  h
    .bodies()
    .filter((b) => b.tools)
    .map((b) => b.model);

describe('the session model', () => {
  it('is used from the next request on, recorded with when, from and to, and announced with the session', async () => {
    h = await makeAgentHarness({ model: 'gemma4' });
    h.script({ text: 'One.' });
    await h.send('first');

    const meta = h.engine.setSessionModel(h.sessionId, 'scripted-model');
    expect(meta.model).toBe('scripted-model');
    expect(h.ofType('session_changed').at(-1)!.meta.model).toBe('scripted-model');
    h.script({ text: 'Two.' });
    await h.send('second');

    expect(chatModels()).toEqual(['gemma4', 'scripted-model']);
    expect(h.store.getModelChanges(h.sessionId)).toEqual([{ at: expect.any(String), from: 'gemma4', to: 'scripted-model', transcript_index: 3 }]);
    expect(h.audit().find((r) => r.event === 'model_change')).toMatchObject({ from: 'gemma4', to: 'scripted-model' });
  });

  it('changed during a turn, takes effect at the next turn, not midway', async () => {
    h = await makeAgentHarness({ model: 'gemma4' });
    let release!: () => void;
    h.script({ toolCalls: [{ name: 'list_files', arguments: {} }], pauseAfterChunks: 1, resume: new Promise<void>((r) => (release = r)) }, { text: 'Listed.' });
    const turn = h.send('list');
    await h.server.waitForRequests(1);
    h.engine.setSessionModel(h.sessionId, 'scripted-model');
    release();
    await turn;
    h.script({ text: 'Next.' });
    await h.send('next');
    expect(chatModels()).toEqual(['gemma4', 'gemma4', 'scripted-model']);
  });

  it('stays with the session: the setting is only the default for new sessions', async () => {
    h = await makeAgentHarness({ model: 'gemma4' });
    h.engine.setSessionModel(h.sessionId, 'scripted-model');
    h.engine.updateConfig({ model: 'other-default' });
    h.script({ text: 'Kept.' });
    await h.send('hello');
    expect(chatModels()).toEqual(['scripted-model']);
    expect((await h.engine.createSession()).model).toBe('other-default');
    // Setting the model it already has records nothing.
    h.engine.setSessionModel(h.sessionId, 'scripted-model');
    expect(h.store.getModelChanges(h.sessionId)).toHaveLength(1);
  });

  it('is refused while another process works in the session, and nothing is recorded', async () => {
    h = await makeAgentHarness();
    h.engine.close(h.sessionId);
    const otherStore = SessionStore.open(h.dataDir);
    // Another owner, alive (this pid): the engine's own lease rule applies.
    const lease = otherStore.acquireLease(h.sessionId, 'other-process');
    try {
      expect(() => h.engine.setSessionModel(h.sessionId, 'scripted-model')).toThrow(/in use/);
      expect(h.store.getMeta(h.sessionId).model).toBe(h.config.model);
      expect(h.store.getModelChanges(h.sessionId)).toEqual([]);
    } finally {
      lease.release();
      otherStore.close();
    }
  });

  it('refuses an empty name', async () => {
    h = await makeAgentHarness();
    expect(() => h.engine.setSessionModel(h.sessionId, '  ')).toThrow('A model name is required.');
  });
});

describe('message facts', () => {
  it("records the reply's model, tokens, cost, latency and speed, and every message's time", async () => {
    h = await makeAgentHarness({ model: 'gpt-4o' });
    h.script({ chunks: ['Hello ', 'there, ', 'friend.'], usage: { prompt_tokens: 1000, completion_tokens: 200 }, chunkDelayMs: 20 });
    await h.send('hi');

    const facts = h.store.getTranscriptFacts(h.sessionId);
    const transcript = h.store.getTranscript(h.sessionId);
    expect(transcript.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
    for (const f of facts) expect(Date.parse(f!.at)).not.toBeNaN();
    const reply = facts[2]!;
    expect(reply).toMatchObject({ model: 'gpt-4o', prompt_tokens: 1000, completion_tokens: 200, cost_usd: (1000 * 2.5 + 200 * 10) / 1e6 });
    expect(reply.estimated).toBeUndefined();
    expect(reply.latency_ms).toBeGreaterThanOrEqual(0);
    // Two 20 ms pauses after the first token: 200 tokens in at least 40 ms.
    expect(reply.tokens_per_second).toBeGreaterThan(0);
    expect(reply.tokens_per_second).toBeLessThanOrEqual(200 / 0.04);
    expect(facts[1]).toEqual({ at: expect.any(String) });

    // The event that announced the reply carried the same facts.
    const announced = h.ofType('message').find((e) => e.message.role === 'assistant');
    expect(announced!.facts).toEqual(reply);
  });

  it('estimates the tokens when the server reports no usage, and says they are estimated', async () => {
    h = await makeAgentHarness({ model: 'gemma4' });
    h.script({ text: 'A reply without usage.', usage: null });
    await h.send('hello');
    const reply = h.store.getTranscriptFacts(h.sessionId).at(-1)!;
    expect(reply).toMatchObject({ model: 'gemma4', estimated: true, cost_usd: 0 });
    expect(reply.prompt_tokens).toBeGreaterThan(0);
    expect(reply.completion_tokens).toBeGreaterThan(0);
  });

  it('a page of facts lines up with the same page of the transcript', async () => {
    h = await makeAgentHarness();
    h.script({ text: 'One.' });
    await h.send('first');
    expect(h.store.getTranscriptFacts(h.sessionId, 1, 2).map((f) => f?.model ?? null)).toEqual([null, h.config.model]);
  });
});

describe("an imported session's model", () => {
  /** A Claude Code session (replies by claude-sonnet-4-5) imported into the harness's store; its Loom id. */
  async function importClaudeSession(): Promise<string> {
    const folder = path.join(h.dataDir, 'claude-projects');
    writeFile(path.join(folder, '-home-ada-lexer', `${CLAUDE_SESSION}.jsonl`), jsonl(claudeMain()));
    await runImport(h.store, await importFiles({ source: 'claude-code', path: folder, home: h.dataDir }));
    const imported = h.store.list().find((s) => s.id !== h.sessionId);
    expect(imported?.model).toBe('claude-sonnet-4-5');
    return imported!.id;
  }

  it('is not sent to the server until one is chosen: the turn is refused, then runs with the choice', async () => {
    h = await makeAgentHarness({ model: 'gemma4' });
    const id = await importClaudeSession();
    // Opening closes the import's unanswered call (recovery); the refused turn adds nothing after that.
    const before = (await h.engine.openSession(id)).message_count;
    const refusal =
      "Claude Code recorded this session with the model claude-sonnet-4-5, which Loom does not send to your server without asking: choose this session's model first.";
    await expect(h.engine.send(id, 'go on')).rejects.toMatchObject({ code: 'model_not_chosen', message: refusal });
    await expect(h.engine.compact(id)).rejects.toMatchObject({ code: 'model_not_chosen' });
    expect(h.server.requests).toHaveLength(0);
    expect(h.store.getMeta(id).message_count).toBe(before);

    h.engine.setSessionModel(id, 'gemma4');
    h.script({ text: 'Going on.' });
    await h.engine.send(id, 'go on');
    await h.engine.afterTurnSettled(id);
    expect(chatModels()).toEqual(['gemma4']);
    expect(h.store.getMeta(id).message_count).toBe(before + 2);
  });

  it('is asked for in a fork of the import too, and never in a session Loom started', async () => {
    h = await makeAgentHarness({ model: 'gemma4' });
    const id = await importClaudeSession();
    const fork = h.engine.fork(id);
    await expect(h.engine.send(fork.id, 'hello')).rejects.toMatchObject({ code: 'model_not_chosen' });
    expect(h.engine.unchosenModel(fork.id)).toEqual({ model: 'claude-sonnet-4-5', source: 'Claude Code' });
    expect(h.engine.unchosenModel(h.sessionId)).toBeNull();
    h.script({ text: 'Hi.' });
    expect(await h.send('hello')).toEqual({ error: null });
  });
});
