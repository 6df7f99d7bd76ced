/**
 * A sub-agent's approvals and questions in its parent's tab (docs/DESIGN.md#sub-agents), as
 * the windows get them: each event, and chat.pending after a reload, names the child by its
 * session and the parent's call, and an answer reaches that child's request only. A real
 * backend (store, engine, handlers), the openai client against the scripted model server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BridgeEvent, PendingRequest } from '../../src/shared/contract';
import type { ChatMessage, SessionMeta, SubagentRun } from '../../src/shared/types';
import { isSummaryRequest } from '../agent/harness';
import type { ScriptedReply } from '../support/scripted-server';
import { useModelBackend } from './model-backend';

const ctx = useModelBackend();
const { call } = ctx;

const subagent = (id: string, task: string) => ({ id, name: 'run_subagent', arguments: { agent: 'build', task } });

/** Which conversation a request is: its first user message, unfenced (the parent's, or a child's task). */
function conversationOf(body: { messages: ChatMessage[] }): string {
  const first = body.messages.find((m) => m.role === 'user');
  return (typeof first?.content === 'string' ? first.content : '').replace(/<\/?user_input>/g, '').trim();
}

/** The last tool result the conversation got, unfenced: what a child tells its parent it was told. */
function lastResult(body: { messages: ChatMessage[] }): string {
  const content = body.messages.findLast((m) => m.role === 'tool')?.content ?? '';
  return String(content)
    .replace(/<\/?tool_result[^>]*>/g, '')
    .trim();
}

type Script = ScriptedReply | ((body: { messages: ChatMessage[] }) => ScriptedReply);

/** Each conversation's n-th request gets its n-th reply, whichever order parallel children ask in. */
function route(scripts: Record<string, Script[]>): void {
  const total = Object.values(scripts).reduce((n, replies) => n + replies.length, 0) + 1;
  const respond = (body: { messages: ChatMessage[] }): ScriptedReply => {
    if (isSummaryRequest(body)) return { text: 'Sub-agents' };
    const reply = scripts[conversationOf(body)]?.[body.messages.filter((m) => m.role === 'assistant').length];
    if (!reply) return { status: 500, error: `unscripted request for "${conversationOf(body)}"` };
    return typeof reply === 'function' ? reply(body) : reply;
  };
  ctx.model.enqueue(...Array.from({ length: total }, () => ({ respond })));
}

/** A child's reply that repeats the result of its call: the parent's result for that child shows the answer it got. */
const tellWhatHappened: Script = (body) => ({ text: `Told: ${lastResult(body)}` });

/** The pending requests of `sessionId` once there are `count`. */
async function pendingOnce(sessionId: string, count: number): Promise<PendingRequest[]> {
  for (;;) {
    const pending = await call<PendingRequest[]>('chat.pending', { sessionId });
    if (pending.length >= count) return pending;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function events(): BridgeEvent[] {
  const seen: BridgeEvent[] = [];
  ctx.backend.subscribe((event) => void seen.push(event));
  return seen;
}

describe("a sub-agent's requests in its parent's tab", () => {
  it('name the child by id; with two children waiting at once, approving one and denying the other answers each its own', async () => {
    const parent = await call<SessionMeta>('chat.create', {});
    route({
      'write two notes': [{ toolCalls: [subagent('b1', 'write note A'), subagent('b2', 'write note B')] }, { text: 'Both answered.' }],
      'write note A': [{ toolCalls: [{ id: 'wa', name: 'write_file', arguments: { path: 'a.txt', content: 'A\n' } }] }, tellWhatHappened],
      'write note B': [{ toolCalls: [{ id: 'wb', name: 'write_file', arguments: { path: 'b.txt', content: 'B\n' } }] }, tellWhatHappened],
    });
    const seen = events();
    const turn = call<{ error: string | null }>('chat.send', { sessionId: parent.id, text: 'write two notes' });

    // Both children wait at once, each request naming its own child.
    const pending = await pendingOnce(parent.id, 2);
    const runs = await call<SubagentRun[]>('sessions.children', { id: parent.id });
    const childOf = (callId: string) => runs.find((r) => r.child.call_id === callId)!.id;
    const byTask = (task: string) => pending.find((p) => p.subagent?.task === task)!;
    expect(byTask('write note A').subagent).toEqual({ childId: childOf('b1'), callId: 'b1', agent: 'build', task: 'write note A' });
    expect(byTask('write note B').subagent).toEqual({ childId: childOf('b2'), callId: 'b2', agent: 'build', task: 'write note B' });
    // The windows' events say the same as the list a reloaded window reads.
    const announced = seen.filter((e) => e.type === 'approval');
    expect(announced.map((e) => [e.sessionId, e.requestId, e.subagent])).toEqual(
      expect.arrayContaining(pending.map((p) => [parent.id, p.requestId, p.subagent])),
    );

    await call('chat.approve', { requestId: byTask('write note A').requestId, answer: 'once' });
    await call('chat.approve', { requestId: byTask('write note B').requestId, answer: 'deny' });
    expect(await turn).toEqual({ error: null });

    expect(fs.readFileSync(path.join(ctx.projectDir, 'a.txt'), 'utf8')).toBe('A\n');
    expect(fs.existsSync(path.join(ctx.projectDir, 'b.txt'))).toBe(false);
    const page = await call<{ messages: ChatMessage[] }>('sessions.transcript', { id: parent.id, offset: 0, limit: 50 });
    const resultOf = (callId: string) => page.messages.find((m) => m.role === 'tool' && m.tool_call_id === callId)?.content ?? '';
    expect(resultOf('b1')).toContain('Told: ');
    expect(resultOf('b1')).not.toContain('Denied');
    expect(resultOf('b2')).toContain('Told: Denied by the user');
  });

  it("a child's question is the parent's to answer, named by the child; the answer is the child's", async () => {
    const parent = await call<SessionMeta>('chat.create', {});
    route({
      'pick a colour': [{ toolCalls: [subagent('q1', 'ask which colour')] }, { text: 'Asked.' }],
      'ask which colour': [{ toolCalls: [{ id: 'aq', name: 'ask_question', arguments: { question: 'Which colour?' } }] }, tellWhatHappened],
    });
    const seen = events();
    const turn = call<{ error: string | null }>('chat.send', { sessionId: parent.id, text: 'pick a colour' });

    const [question] = await pendingOnce(parent.id, 1);
    const [run] = await call<SubagentRun[]>('sessions.children', { id: parent.id });
    expect(question).toMatchObject({ kind: 'question', subagent: { childId: run!.id, callId: 'q1', agent: 'build', task: 'ask which colour' } });
    expect(question?.kind === 'question' && question.question).toBe('(build sub-agent, "ask which colour") Which colour?');
    expect(seen.find((e) => e.type === 'question')).toMatchObject({ sessionId: parent.id, requestId: question!.requestId, subagent: question!.subagent });

    await call('chat.answer', { requestId: question!.requestId, answer: 'teal' });
    expect(await turn).toEqual({ error: null });
    const page = await call<{ messages: ChatMessage[] }>('sessions.transcript', { id: parent.id, offset: 0, limit: 50 });
    expect(page.messages.find((m) => m.role === 'tool')?.content).toContain('Told: The user answered: teal');
  });
});
