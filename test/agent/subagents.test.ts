/**
 * Sub-agents (docs/DESIGN.md#sub-agents), for real: the engine over a real store, the real
 * tools and the openai client against the scripted server. Each conversation (the parent's,
 * each child's) is scripted by its first user message, so replies reach the right session
 * whichever order parallel children ask in.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { INTERRUPTED_RESULT } from '../../src/core/agent/recovery';
import type { ChatMessage } from '../../src/shared/types';
import type { ScriptedReply } from '../support/scripted-server';
import { isSummaryRequest, makeAgentHarness, SUMMARY_TEXT, type AgentHarness } from './harness';

let h: AgentHarness;
afterEach(async () => {
  await h?.cleanup();
});

const subagent = (id: string, agent: string, task: string) => ({ id, name: 'run_subagent', arguments: { agent, task } });
const TASKS = ['find the parser', 'find the tests', 'find the docs'];

/** The first user message's text, unwrapped from its fence: which conversation a request belongs to. */
function conversationOf(body: any): string {
  const first = body.messages.find((m: ChatMessage) => m.role === 'user');
  return String(first?.content ?? '')
    .replace(/<\/?user_input>/g, '')
    .trim();
}

/** Scripts each conversation by its first user message: its n-th request gets its n-th reply. */
function route(h: AgentHarness, scripts: Record<string, (ScriptedReply | ((body: any) => Promise<ScriptedReply>))[]>): void {
  const total = Object.values(scripts).reduce((n, replies) => n + replies.length, 0) + 1;
  const respond = async (body: any): Promise<ScriptedReply> => {
    if (isSummaryRequest(body)) return { text: SUMMARY_TEXT };
    const replies = scripts[conversationOf(body)];
    const reply = replies?.[body.messages.filter((m: ChatMessage) => m.role === 'assistant').length];
    if (!reply) return { status: 500, error: `unscripted request for "${conversationOf(body)}"` };
    return typeof reply === 'function' ? reply(body) : reply;
  };
  h.server.enqueue(...Array.from({ length: total }, () => ({ respond })));
}

function childrenOf(h: AgentHarness) {
  return h.store.children(h.sessionId);
}

describe('run_subagent', () => {
  it('runs three sub-agents of one reply at the same time, each in its own session, their answers in call order', async () => {
    h = await makeAgentHarness();
    // Each child's first reply waits until all three children have asked: run one after another, they never would.
    const together = async (): Promise<ScriptedReply> => {
      await h.server.waitForRequests(4, 10_000);
      return { text: 'unused' };
    };
    route(h, {
      'look around': [{ toolCalls: TASKS.map((task, i) => subagent(`sa${i}`, 'explore', task)) }, { text: 'All three reported.' }],
      ...Object.fromEntries(TASKS.map((task) => [task, [async () => ({ ...(await together()), text: `Answer to ${task}.` })]])),
    });

    expect(await h.send('look around')).toEqual({ error: null });

    const context = h.context();
    const results = context.filter((m) => m.role === 'tool');
    expect(results.map((m) => m.tool_call_id)).toEqual(['sa0', 'sa1', 'sa2']);
    TASKS.forEach((task, i) => expect(results[i]!.content).toContain(`Answer to ${task}.`));
    expect(context.at(-1)).toEqual({ role: 'assistant', content: 'All three reported.' });

    const children = childrenOf(h);
    expect(children.map((c) => [c.child.call_id, c.child.agent, c.child.state])).toEqual([
      ['sa0', 'explore', 'done'],
      ['sa1', 'explore', 'done'],
      ['sa2', 'explore', 'done'],
    ]);
    for (const [i, child] of children.entries()) {
      // Its own context: its agent's prompt and its task, never the parent's history.
      const own = h.store.getContext(child.id);
      expect(own.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
      expect(own[0]!.content).toContain('You explore a codebase');
      expect(JSON.stringify(own)).not.toContain('look around');
      expect(conversationOf({ messages: own })).toBe(TASKS[i]);
      expect(h.store.getMeta(child.id).status).toBe('saved');
    }
    expect(h.store.list().map((s) => s.id)).toEqual([h.sessionId]);
    const states = h.ofType('subagent').map((e) => `${e.callId}:${e.state}`);
    expect(states.filter((s) => s.endsWith('running'))).toHaveLength(3);
    expect(states.filter((s) => s.endsWith('done'))).toHaveLength(3);
    // Leases are held for a turn (docs/DESIGN.md#who-may-change-a-session): the parent's and every child's were released.
    expect(h.store.db.prepare('SELECT count(*) AS n FROM leases').get()).toEqual({ n: 0 });
  });

  it("asks a child's approval in the parent's tab, naming the child's agent and task; the answer is that call's only", async () => {
    h = await makeAgentHarness();
    const task = 'write the notes file';
    route(h, {
      'make notes': [{ toolCalls: [subagent('b1', 'build', task)] }, { text: 'Done.' }],
      [task]: [{ toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'notes.txt', content: 'hello\n' } }] }, { text: 'Wrote it.' }],
    });
    h.approvals.push(true);

    expect(await h.send('make notes')).toEqual({ error: null });

    const [approval] = h.ofType('approval');
    expect(approval?.sessionId).toBe(h.sessionId);
    expect(approval?.label).toContain(`build sub-agent, "${task}"`);
    expect(h.read('notes.txt')).toBe('hello\n');
    expect(h.context().find((m) => m.role === 'tool')?.content).toContain('Wrote it.');
    expect(h.engine.grants(h.sessionId)).toEqual([]);
  });

  it('refuses a write to a child under the plan agent', async () => {
    h = await makeAgentHarness({ mode: 'dangerouslySkipPermissions' });
    const task = 'plan the change';
    route(h, {
      plan: [{ toolCalls: [subagent('p1', 'plan', task)] }, { text: 'Planned.' }],
      [task]: [
        { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'x.txt', content: 'no\n' } }] },
        { text: 'I could not write; here is the plan.' },
      ],
    });

    expect(await h.send('plan')).toEqual({ error: null });

    expect(h.read('x.txt')).toBeNull();
    const [child] = childrenOf(h);
    const refusal = h.store.getContext(child!.id).find((m) => m.role === 'tool');
    expect(refusal?.content).toContain('Denied (the plan agent is read-only)');
    const offered = h
      .bodies()
      .find((b) => conversationOf(b) === task)
      .tools.map((t: any) => t.function.name);
    expect(offered).not.toContain('write_file');
    expect(offered).not.toContain('run_subagent');
  });

  it('stops a child at its own caps; the parent hears it gave no answer, its partial work kept', async () => {
    h = await makeAgentHarness({ maxTurns: 2 });
    h.write('a.txt', 'a\n');
    const task = 'read forever';
    const read = (id: string) => ({ toolCalls: [{ id, name: 'read_file', arguments: { path: 'a.txt' } }] });
    route(h, {
      go: [{ toolCalls: [subagent('c1', 'explore', task)] }, { text: 'It ran out.' }],
      [task]: [read('r1'), read('r2')],
    });

    expect(await h.send('go')).toEqual({ error: null });

    const [child] = childrenOf(h);
    expect(child?.child.state).toBe('stopped');
    expect(h.context().find((m) => m.role === 'tool')?.content).toContain(`gave no answer: it stopped before a final answer`);
    expect(h.store.getTranscript(child!.id).filter((m) => m.role === 'tool')).toHaveLength(2);
  });

  it('a stop of the parent stops every child; each keeps its partial work', async () => {
    h = await makeAgentHarness();
    route(h, {
      'look around': [{ toolCalls: TASKS.map((task, i) => subagent(`sa${i}`, 'explore', task)) }],
      ...Object.fromEntries(TASKS.map((task) => [task, [{ hangMs: 30_000 }]])),
    });
    const sent = h.send('look around');
    await h.server.waitForRequests(4, 10_000);

    expect(h.engine.stop(h.sessionId)).toBe(true);
    expect(await sent).toEqual({ error: null });

    expect(childrenOf(h).map((c) => c.child.state)).toEqual(['stopped', 'stopped', 'stopped']);
    for (const child of childrenOf(h)) expect(h.store.getTranscript(child.id).map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
    expect(
      h
        .context()
        .filter((m) => m.role === 'tool')
        .map((m) => m.tool_call_id),
    ).toEqual(['sa0', 'sa1', 'sa2']);
  });
  it("reads the folder's agents once per parent turn: a file written during a turn is used from the next", async () => {
    h = await makeAgentHarness();
    const scout = '---\nname: scout\ndescription: Looks around\naccess: readOnly\n---\nYou scout.';
    route(h, {
      'look around': [
        { toolCalls: [subagent('sa0', 'explore', 'find the parser')] },
        { toolCalls: [subagent('sa1', 'scout', 'find more')] },
        { text: 'No scout yet.' },
        { toolCalls: [subagent('sa2', 'scout', 'find more')] },
        { text: 'Scouted.' },
      ],
      'find the parser': [
        async () => {
          h.write('.loom/agents/scout.md', scout);
          return { text: 'The parser is in src.' };
        },
      ],
      'find more': [{ text: 'More found.' }],
    });

    expect(await h.send('look around')).toEqual({ error: null });
    const missing = h.context().find((m) => m.role === 'tool' && m.tool_call_id === 'sa1');
    expect(missing?.content).toContain('There is no agent named "scout"');

    expect(await h.send('look again')).toEqual({ error: null });
    expect(childrenOf(h).map((c) => [c.child.call_id, c.child.agent, c.child.state])).toEqual([
      ['sa0', 'explore', 'done'],
      ['sa2', 'scout', 'done'],
    ]);
  });
});

describe('a crash mid-child', () => {
  it('on resume answers the call "interrupted" without running it again, and marks the child interrupted', async () => {
    h = await makeAgentHarness();
    // What a process killed while its child ran leaves: the parent's call unanswered, the child running.
    h.store.appendMessage(h.sessionId, { role: 'user', content: '<user_input>\ngo\n</user_input>' });
    const call = { id: 'k1', type: 'function' as const, function: { name: 'run_subagent', arguments: JSON.stringify({ agent: 'explore', task: 'dig' }) } };
    h.store.appendMessage(h.sessionId, { role: 'assistant', content: null, tool_calls: [call] });
    const child = h.store.create({ spawn: { parentId: h.sessionId, callId: 'k1', agent: 'explore' }, messages: [{ role: 'user', content: 'dig' }] });
    h.reopen();

    await h.engine.openSession(h.sessionId);

    expect(h.ofType('approval')).toEqual([]);
    expect(h.context().at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'k1' });
    expect((h.context().at(-1) as { content: string }).content).toContain(INTERRUPTED_RESULT);
    expect(h.store.childLink(child.id)?.state).toBe('interrupted');
    expect(h.store.getTranscript(child.id)).toHaveLength(1);
  });
});
