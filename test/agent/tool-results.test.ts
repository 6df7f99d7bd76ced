/**
 * The rule the whole conversation depends on: every tool call gets exactly one result,
 * right after the assistant message that made it — whatever cuts the batch short (a cap,
 * a denial, a stop while asking or while running, a front end that fails) — so the stored
 * context and the next request are always valid.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/shared/types';
import { nth } from '../support/elements';
import { makeAgentHarness, type AgentHarness } from './harness';

let h: AgentHarness;
afterEach(async () => {
  await h?.cleanup();
});

/** Throws unless each assistant tool call is answered once, by the tool messages that follow it. */
function expectValidToolPairing(messages: ChatMessage[]): void {
  for (let i = 0; i < messages.length; i++) {
    const message = nth(messages, i);
    if (message.role === 'tool') {
      const owner = messages.slice(0, i).findLast((m) => m.role !== 'tool');
      expect(owner?.role, `tool result ${message.tool_call_id} has no assistant call before it`).toBe('assistant');
    }
    if (message.role !== 'assistant' || !message.tool_calls?.length) continue;
    const answered: string[] = [];
    for (let j = i + 1; j < messages.length && nth(messages, j).role === 'tool'; j++) {
      answered.push((messages[j] as Extract<ChatMessage, { role: 'tool' }>).tool_call_id);
    }
    expect(answered).toEqual(message.tool_calls.map((c) => c.id));
  }
}

/** Stops the turn once the command has really started, however busy the machine is. */
async function stopOnceStarted(): Promise<void> {
  const started = path.join(h.projectDir, 'started');
  const deadline = Date.now() + 15_000;
  while (!fs.existsSync(started) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  h.engine.stop(h.sessionId);
}

type Answer = 'allow' | 'deny' | 'stop while asking' | 'stop while running' | 'front end fails';

async function runBatch(maxToolCalls: number, answer: Answer): Promise<void> {
  h = await makeAgentHarness({ maxToolCalls });
  h.write('a.txt', 'a\n');
  if (answer === 'allow' || answer === 'stop while running') h.approvals.push(true);
  if (answer === 'deny') h.approvals.push(false);
  h.onApproval = () => {
    if (answer === 'stop while asking') h.engine.stop(h.sessionId);
    if (answer === 'stop while running') void stopOnceStarted();
    if (answer === 'front end fails') throw new Error('the window went away');
  };
  h.server.enqueue(
    {
      toolCalls: [
        { id: 'r1', name: 'read_file', arguments: { path: 'a.txt' } },
        { id: 'b1', name: 'run_bash', arguments: { command: answer === 'stop while running' ? 'touch started && sleep 30' : 'true' } },
        { id: 'r2', name: 'read_file', arguments: { path: 'a.txt' } },
      ],
    },
    // Enough plain answers for the rest of this turn, its listing summary and the next turn.
    ...Array.from({ length: 4 }, () => ({ text: 'ok' })),
  );
  await h.send('read, run, read');
  expectValidToolPairing(h.context());

  h.onApproval = undefined;
  expect(await h.send('and now?')).toEqual({ error: null });
  const requests = h.bodies().filter((b) => b.tools);
  for (const body of requests) expectValidToolPairing(body.messages);
  expect(
    requests
      .at(-1)
      .messages.filter((m: any) => m.role === 'tool')
      .map((m: any) => m.tool_call_id),
  ).toEqual(['r1', 'b1', 'r2']);
}

const ANSWERS: Answer[] = ['allow', 'deny', 'stop while asking', 'stop while running', 'front end fails'];

describe('every tool call gets exactly one result', () => {
  for (const maxToolCalls of [1, 2, 10]) {
    for (const answer of ANSWERS) {
      it(`--max-tool-calls ${maxToolCalls}, approval: ${answer}`, async () => {
        await runBatch(maxToolCalls, answer);
      });
    }
  }

  it('says what went wrong when the front end fails while asking', async () => {
    await runBatch(10, 'front end fails');
    const result = h.context().find((m) => m.role === 'tool' && m.tool_call_id === 'b1');
    expect(result?.content).toBe('Error: the tool call could not be run: the window went away');
    expect(h.listenerErrors.map((err) => (err as Error).message)).toContain('the window went away');
  });
});
