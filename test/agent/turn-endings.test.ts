/**
 * How a turn ends and what the next one starts from (issue 9): a failed request sent
 * again, the listing summary after a reply, a reply the user stopped and its continuation.
 * Each checks what the store holds and what the model server received.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/shared/types';
import { parseExport } from '../../src/core/store/export-schema';
import { strictChatViolations } from '../support/strict-chat-rules';
import { isSummaryRequest, makeAgentHarness, SUMMARY_TEXT, type AgentHarness } from './harness';

let h: AgentHarness;
afterEach(async () => {
  await h?.cleanup();
});

/** A 500 for the first try and each of the client's 3 retries, with no wait between them. */
const SERVER_DOWN = Array.from({ length: 4 }, () => ({ status: 500, error: 'upstream exploded', retryAfter: 0 }));

function chatBodies(): any[] {
  return h.bodies().filter((body) => !isSummaryRequest(body));
}

function usersInARow(messages: { role: string }[]): number {
  return messages.filter((m, i) => m.role === 'user' && messages[i - 1]?.role === 'user').length;
}

function userMessagesSaying(messages: ChatMessage[], text: string): number {
  return messages.filter((m) => m.role === 'user' && (m.content as string).includes(text)).length;
}

describe('sending a message again after its request failed', () => {
  it('asks again with the message once, in the transcript and in the request', async () => {
    h = await makeAgentHarness();
    h.server.enqueue(...SERVER_DOWN);
    expect((await h.send('Are you there?')).error).toMatch(/500|server/i);

    h.script({ text: 'Here now.' });
    expect(await h.send('Are you there?')).toEqual({ error: null });

    const retried = chatBodies().at(-1);
    expect(userMessagesSaying(retried.messages, 'Are you there?')).toBe(1);
    expect(strictChatViolations(retried)).toEqual([]);
    expect(userMessagesSaying(h.store.getTranscript(h.sessionId), 'Are you there?')).toBe(1);
    expect(h.context().at(-1)).toEqual({ role: 'assistant', content: 'Here now.' });
  });

  it('after a tool call ran, goes on from its result instead of asking from the start', async () => {
    h = await makeAgentHarness();
    h.write('notes.txt', 'hello\n');
    h.server.enqueue({ toolCalls: [{ id: 'call_read', name: 'read_file', arguments: { path: 'notes.txt' } }] }, ...SERVER_DOWN);
    expect((await h.send('What is in notes.txt?')).error).toMatch(/500|server/i);

    h.script({ text: 'It says hello.' });
    expect(await h.send('What is in notes.txt?')).toEqual({ error: null });
    const retried = chatBodies().at(-1);
    expect(retried.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(strictChatViolations(retried)).toEqual([]);
    expect(userMessagesSaying(h.store.getTranscript(h.sessionId), 'What is in notes.txt?')).toBe(1);
  });

  it('is a new message once the first was answered', async () => {
    h = await makeAgentHarness();
    h.script({ text: 'Yes.' });
    await h.send('Are you there?');
    h.server.enqueue({ text: 'Still here.' });
    expect(await h.send('Are you there?')).toEqual({ error: null });
    expect(userMessagesSaying(h.context(), 'Are you there?')).toBe(2);
  });
});

describe('the listing summary after a reply', () => {
  it('comes after the turn has ended, never keeps the session busy, and a new message cancels it', async () => {
    h = await makeAgentHarness();
    let releaseSummary = () => {};
    const held = new Promise<void>((resolve) => (releaseSummary = resolve));
    h.server.enqueue(
      { text: 'First answer.' },
      { text: 'A stale label', pauseAfterChunks: 1, resume: held },
      { text: 'Second answer.' },
      { text: SUMMARY_TEXT },
    );
    try {
      // engine.send, not h.send: that one waits for the summary too.
      expect(await h.engine.send(h.sessionId, 'hello')).toEqual({ error: null });
      await h.server.waitForRequests(2);
      expect(h.engine.contextState(h.sessionId).busy).toBe(false);

      expect(await h.engine.send(h.sessionId, 'and then?')).toEqual({ error: null });
      await h.engine.afterTurnSettled(h.sessionId);
    } finally {
      releaseSummary();
    }
    expect(h.bodies().map(isSummaryRequest)).toEqual([false, true, false, true]);
    expect(h.context().at(-1)).toEqual({ role: 'assistant', content: 'Second answer.' });
    // The first summary was cancelled; the one written after the second turn stands.
    expect(h.store.getMeta(h.sessionId).summary).toBe(SUMMARY_TEXT);
  });
});

describe('a reply the user stopped', () => {
  it('is kept as far as it streamed, marked as stopped, and the continuation alternates turns', async () => {
    h = await makeAgentHarness();
    h.server.enqueue({ chunks: ['The first half, ', 'and the rest.'], stallAfterChunks: 2 });
    const turn = h.engine.send(h.sessionId, 'Tell me a story');
    // A reloaded window asks for the reply in flight: it has what streamed so far.
    await expect.poll(() => h.engine.contextState(h.sessionId).replyInFlight).toBe('The first half, ');
    h.engine.stop(h.sessionId);
    expect(await turn).toEqual({ error: null });
    expect(h.engine.contextState(h.sessionId).replyInFlight).toBe('');

    const stopped: ChatMessage = { role: 'assistant', content: 'The first half, ', stopped: true };
    expect(h.context().at(-1)).toEqual(stopped);
    h.reopen();
    expect(h.store.getTranscript(h.sessionId).at(-1)).toEqual(stopped);
    const imported = h.store.importSession(parseExport(await h.store.exportSession(h.sessionId))).meta.id;
    expect(h.store.getContext(imported).at(-1)).toEqual(stopped);

    h.script({ text: 'And the rest.' });
    expect(await h.send('Continue from where you stopped.')).toEqual({ error: null });
    const continued = chatBodies().at(-1);
    expect(continued.messages.slice(-2)).toEqual([
      { role: 'assistant', content: 'The first half, ' },
      { role: 'user', content: '<user_input>\nContinue from where you stopped.\n</user_input>' },
    ]);
    expect(strictChatViolations(continued)).toEqual([]);
    expect(usersInARow(continued.messages)).toBe(0);
  });

  it('stopped while a failed request waits for its retry, is kept empty, and the stop is no failure', async () => {
    h = await makeAgentHarness();
    h.server.enqueue({ status: 503, error: 'busy', retryAfter: 30 });
    const turn = h.engine.send(h.sessionId, 'Anyone home?');
    await expect.poll(() => h.ofType('notice').some((n) => n.text.includes('Retrying'))).toBe(true);
    h.engine.stop(h.sessionId);
    expect(await turn).toEqual({ error: null });
    expect(h.context().slice(-2)).toEqual([
      { role: 'user', content: '<user_input>\nAnyone home?\n</user_input>' },
      { role: 'assistant', content: '', stopped: true },
    ]);
  });

  it('stopped before any text arrived, still leaves no two user messages in a row', async () => {
    h = await makeAgentHarness();
    h.server.enqueue({ hangMs: 60_000 });
    const turn = h.engine.send(h.sessionId, 'Think hard');
    await h.server.waitForRequests(1);
    h.engine.stop(h.sessionId);
    await turn;
    expect(h.context().at(-1)).toEqual({ role: 'assistant', content: '', stopped: true });

    h.script({ text: 'A quick answer.' });
    expect(await h.send('Never mind, be quick')).toEqual({ error: null });
    const next = chatBodies().at(-1);
    expect(usersInARow(next.messages)).toBe(0);
    expect(strictChatViolations(next)).toEqual([]);
  });
});
