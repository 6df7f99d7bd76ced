/**
 * Event delivery isolates the front ends' listeners: one that throws neither cuts the turn
 * short (every tool call still gets its one result) nor keeps the event from the others,
 * and its failure is reported once instead of vanishing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../src/shared/engine-events';
import type { ChatMessage } from '../../src/shared/types';
import { LoomEngine } from '../../src/core/engine';
import { lastMessage, makeAgentHarness, SUMMARY_TEXT, type AgentHarness } from './harness';

let h: AgentHarness;
let engine: LoomEngine | undefined;
afterEach(async () => {
  engine?.close();
  engine = undefined;
  await h?.cleanup();
});

/** An engine of its own over the harness's store and model server, reporting listener failures into `reports`. */
async function engineWithReports(reports: { error: string; event: string }[]): Promise<{ engine: LoomEngine; sessionId: string }> {
  engine = new LoomEngine({
    config: h.config,
    store: h.store,
    projectDir: h.projectDir,
    onListenerError: (err, event) => reports.push({ error: (err as Error).message, event: event.type }),
  });
  return { engine, sessionId: (await engine.createSession()).id };
}

/** For each tool call id in the transcript, how many tool results answer it. */
function resultsPerCall(transcript: ChatMessage[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const m of transcript) {
    if (m.role === 'assistant') for (const call of m.tool_calls ?? []) counts[call.id] ??= 0;
  }
  for (const m of transcript) {
    if (m.role === 'tool') counts[m.tool_call_id] = (counts[m.tool_call_id] ?? 0) + 1;
  }
  return counts;
}

describe('event listeners', () => {
  it('a listener throwing on tool_start: the turn completes, every call has one result, the others still hear everything', async () => {
    h = await makeAgentHarness();
    h.write('a.txt', 'alpha\n');
    h.write('b.txt', 'beta\n');
    const reports: { error: string; event: string }[] = [];
    const { engine, sessionId } = await engineWithReports(reports);
    engine.on((event) => {
      if (event.type === 'tool_start') throw new Error('the window is gone');
    });
    const heard: EngineEvent[] = [];
    engine.on((event) => heard.push(event));
    h.server.enqueue(
      {
        toolCalls: [
          { id: 'r1', name: 'read_file', arguments: { path: 'a.txt' } },
          { id: 'r2', name: 'read_file', arguments: { path: 'b.txt' } },
        ],
      },
      { text: 'Both files read.' },
      { text: SUMMARY_TEXT },
    );

    expect(await engine.send(sessionId, 'read both')).toEqual({ error: null });

    const transcript = h.store.getTranscript(sessionId);
    expect(resultsPerCall(transcript)).toEqual({ r1: 1, r2: 1 });
    expect(transcript.at(-1)).toEqual({ role: 'assistant', content: 'Both files read.' });
    expect(heard.filter((e) => e.type === 'tool_start').map((e) => (e as { callId: string }).callId)).toEqual(['r1', 'r2']);
    expect(heard.filter((e) => e.type === 'tool_end')).toHaveLength(2);
    expect(heard.at(-1)).toMatchObject({ type: 'session_changed', sessionId, meta: { id: sessionId } });
    expect(heard.filter((e) => e.type === 'turn')).toEqual([
      { type: 'turn', sessionId, phase: 'start' },
      { type: 'turn', sessionId, phase: 'end' },
    ]);
    // Thrown twice (one per call), reported once.
    expect(reports).toEqual([{ error: 'the window is gone', event: 'tool_start' }]);
  });

  it('an approval no listener could take ends the call with that error, not a wait without end', async () => {
    h = await makeAgentHarness();
    const reports: { error: string; event: string }[] = [];
    const { engine, sessionId } = await engineWithReports(reports);
    engine.on((event) => {
      if (event.type === 'approval') throw new Error('cannot show prompts');
    });
    h.server.enqueue({ toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'w.txt', content: 'x' } }] }, { text: 'ok' }, { text: SUMMARY_TEXT });

    expect(await engine.send(sessionId, 'write')).toEqual({ error: null });
    expect(h.read('w.txt')).toBeNull();
    expect(lastMessage(h.bodies()[1])).toMatchObject({
      role: 'tool',
      tool_call_id: 'w1',
      content: 'Error: the tool call could not be run: cannot show prompts',
    });
    expect(engine.pendingRequests(sessionId)).toEqual([]);
    expect(reports).toEqual([{ error: 'cannot show prompts', event: 'approval' }]);
  });
});
