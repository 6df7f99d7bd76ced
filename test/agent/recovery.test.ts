/**
 * Resume after a crash during a tool call: the dangling call is shown and either run again
 * (after approval) or closed with the "interrupted" result, so the next request is valid.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findDanglingCalls, INTERRUPTED_RESULT } from '../../src/core/agent/recovery';
import { LoomEngine } from '../../src/core/engine';
import { SessionStore } from '../../src/core/store/session-store';
import type { ChatMessage } from '../../src/shared/types';
import { nth } from '../support/elements';
import { makeAgentHarness, type AgentHarness } from './harness';

let h: AgentHarness;
afterEach(async () => {
  await h?.cleanup();
});

const call = (id: string, path: string) => ({ id, type: 'function' as const, function: { name: 'read_file', arguments: JSON.stringify({ path }) } });

/** What a process killed during its second tool call leaves behind. */
function crashDuringTool(h: AgentHarness): void {
  h.store.appendMessage(h.sessionId, { role: 'user', content: '<user_input>\nread\n</user_input>' });
  h.store.appendMessage(h.sessionId, { role: 'assistant', content: null, tool_calls: [call('done', 'a.txt'), call('lost', 'a.txt')] });
  h.store.appendMessage(h.sessionId, { role: 'tool', tool_call_id: 'done', content: 'a' });
  // The lease dies with the process: the harness reopens the store like a new process.
  h.reopen();
}

describe('findDanglingCalls', () => {
  it('finds the unanswered calls of the last assistant message only', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 's' },
      { role: 'assistant', content: null, tool_calls: [call('1', 'a'), call('2', 'b')] },
      { role: 'tool', tool_call_id: '1', content: 'x' },
    ];
    expect(findDanglingCalls(messages).map((c) => c.id)).toEqual(['2']);
    expect(findDanglingCalls([...messages, { role: 'tool', tool_call_id: '2', content: 'y' }])).toEqual([]);
    expect(findDanglingCalls([...messages.slice(0, 1), { role: 'assistant', content: 'hi' }])).toEqual([]);
  });
});

describe('recovery on resume', () => {
  it('closes the call with the interrupted result when the user says no', async () => {
    h = await makeAgentHarness();
    h.write('a.txt', 'a\n');
    crashDuringTool(h);
    let statusWhileAsking: string | undefined;
    h.onApproval = () => (statusWhileAsking = h.store.getMeta(h.sessionId).status);
    h.approvals.push(false);

    await h.engine.openSession(h.sessionId.slice(0, 8));

    expect(statusWhileAsking).toBe('interrupted');
    expect(nth(h.ofType('notice'), 0).text).toContain('Interrupted tool call from the last run: read_file');
    expect(nth(h.ofType('approval'), 0).summary).toContain('Run the interrupted call again');
    expect(h.context().at(-1)).toEqual({ role: 'tool', tool_call_id: 'lost', content: INTERRUPTED_RESULT });
    expect(h.store.getMeta(h.sessionId).status).toBe('active');

    h.script({ text: 'Carrying on.' });
    expect(await h.send('continue')).toEqual({ error: null });
    const sent = h.bodies()[0].messages;
    expect(sent.filter((m: any) => m.role === 'tool').map((m: any) => m.tool_call_id)).toEqual(['done', 'lost']);
  });

  it('runs the call again when the user says yes', async () => {
    h = await makeAgentHarness();
    h.write('a.txt', 'fresh content\n');
    crashDuringTool(h);
    h.approvals.push(true);
    await h.engine.openSession(h.sessionId);
    const last = h.context().at(-1);
    expect(last).toMatchObject({ role: 'tool', tool_call_id: 'lost' });
    expect((last as any).content).toContain('fresh content');
  });

  it('leaves a session without dangling calls untouched', async () => {
    h = await makeAgentHarness();
    h.reopen();
    const before = h.context();
    await h.engine.openSession(h.sessionId);
    expect(h.context()).toEqual(before);
    expect(h.ofType('approval')).toEqual([]);
  });
});

describe('opening sessions', () => {
  it('refuses an archived session and says how to unarchive it', async () => {
    h = await makeAgentHarness();
    h.reopen();
    h.store.setArchived(h.sessionId, true);
    await expect(h.engine.openSession(h.sessionId)).rejects.toThrow(
      `Session ${h.sessionId} is archived; unarchive it with \`loom --unarchive ${h.sessionId}\` to resume.`,
    );
  });

  it('opens a session another engine has open between turns, and refuses it while that one works in it', async () => {
    h = await makeAgentHarness();
    const other = SessionStore.open(h.dataDir);
    const second = new LoomEngine({ config: h.config, store: other, projectDir: h.projectDir, owner: 'another window' });
    try {
      // The first engine's turn holds the lease (as AgentSession.beginTurn takes it).
      const turn = h.store.acquireLease(h.sessionId, 'the first engine, mid-turn');
      await expect(second.openSession(h.sessionId)).rejects.toThrow(`Session ${h.sessionId} is in use by pid ${process.pid}.`);
      expect(second.isOpen(h.sessionId)).toBe(false);
      turn.release();
      await second.openSession(h.sessionId);
      expect(second.isOpen(h.sessionId)).toBe(true);
      expect(h.engine.isOpen(h.sessionId)).toBe(true);
      second.close(h.sessionId);
      expect(h.store.getMeta(h.sessionId).status).toBe('saved');
    } finally {
      second.close();
      other.close();
    }
  });
});
