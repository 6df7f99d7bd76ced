/**
 * Sub-agents (docs/DESIGN.md#sub-agents): the wall time of three run_subagent calls of one
 * reply run together, against the same three run one after another, with the scripted
 * model answering every request in 200 ms; and Loom's own time to start a sub-agent (the
 * parent's result of the one before committed, the agent looked up, the child's session
 * row, prompt and lease, its task appended, until its first model request arrives). The
 * scripted server shares this process's event loop: a request is stamped when the loop
 * reads it, so Loom's own work in the way counts, and so does the server's parsing (well
 * under a millisecond for these requests).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULTS, type LoomConfig } from '../src/core/config';
import { LoomEngine } from '../src/core/engine';
import { SessionStore } from '../src/core/store/session-store';
import type { EngineEvent } from '../src/shared/engine-events';
import { startScriptedServer, type ScriptedReply, type ScriptedServer } from '../test/support/scripted-server';
import { formatMs, percentile, printTable, progress, type BenchSection } from './harness';

const ROUNDS = 5;
const MODEL_MS = 200;
const TASKS = ['find the parser', 'find the tests', 'find the docs'];
const TARGETS = { ratio: 0.45, startMs: 10 };

export const subagentsSection: BenchSection = {
  name: 'Sub-agents: three in parallel against one after another',
  run: runSubagentBench,
};

async function runSubagentBench(): Promise<void> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-subagents-')));
  const server = await startScriptedServer();
  try {
    const parallel: number[] = [];
    const sequential: number[] = [];
    const starts: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      progress(`subagents: round ${round + 1} of ${ROUNDS}`);
      parallel.push((await oneTurn(root, server, 3)).wallMs);
      const one = await oneTurn(root, server, 1);
      sequential.push(one.wallMs);
      starts.push(...one.startMs);
    }
    const p50 = (values: number[]) =>
      percentile(
        [...values].sort((a, b) => a - b),
        50,
      );
    const ratio = p50(parallel) / p50(sequential);
    const start = p50(starts);
    printTable(
      `Three sub-agents, each answered in ${MODEL_MS} ms (p50 of ${ROUNDS} interleaved rounds)`,
      ['measure', 'value', 'target', 'ok'],
      [
        ['three in parallel', formatMs(p50(parallel)), '', ''],
        ['one after another', formatMs(p50(sequential)), '', ''],
        ['parallel / one after another', `${ratio.toFixed(2)}×`, `≤ ${TARGETS.ratio}×`, ratio <= TARGETS.ratio ? 'yes' : 'NO'],
        // The server is in this process: its request parsing is in the figure, as is any event-loop wait behind it.
        [
          "Loom's own start of a sub-agent (p50: a child's end to the next one's request at the server)",
          formatMs(start),
          `≤ ${TARGETS.startMs} ms`,
          start <= TARGETS.startMs ? 'yes' : 'NO',
        ],
      ],
    );
  } finally {
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/**
 * One parent turn whose first reply starts the three sub-agents. Wall: from the first
 * sub-agent's start to the last one's end. Start (one after another only): from the call's
 * turn (the previous child's end, or the calls announced) to the child's first request.
 */
async function oneTurn(root: string, server: ScriptedServer, maxParallelSubagents: number): Promise<{ wallMs: number; startMs: number[] }> {
  const dataDir = fs.mkdtempSync(path.join(root, 'data-'));
  const store = SessionStore.open(dataDir);
  const config: LoomConfig = { ...DEFAULTS, dataDir, baseUrl: server.baseUrl, apiKey: '', approvePlan: false, maxParallelSubagents };
  const engine = new LoomEngine({ config, store, projectDir: root });
  const marks: { at: number; event: EngineEvent }[] = [];
  engine.on((event) => void marks.push({ at: Date.now(), event }));
  const calls = TASKS.map((task, i) => ({ id: `s${i}`, name: 'run_subagent', arguments: { agent: 'explore', task } }));
  const reply = (r: ScriptedReply): ScriptedReply => ({ ...r, delayMs: MODEL_MS });
  server.enqueue(reply({ toolCalls: calls }), ...TASKS.map((task) => reply({ text: `Found: ${task}.` })), reply({ text: 'Done.' }), reply({ text: 'Bench' }));
  const before = server.requests.length;
  try {
    const { id } = await engine.createSession();
    const outcome = await engine.send(id, 'look around');
    if (outcome.error) throw new Error(outcome.error);
    await engine.afterTurnSettled(id);
    const subagent = marks.filter((m) => m.event.type === 'subagent');
    const first = subagent[0];
    const last = subagent.at(-1);
    if (!first || !last || subagent.length !== 6) throw new Error(`expected 6 sub-agent events, got ${subagent.length}`);
    const childRequests = server.requests.slice(before + 1, before + 1 + TASKS.length);
    const announced = marks.find((m) => m.event.type === 'tool_start')?.at ?? first.at;
    const ends = subagent.filter((m) => m.event.type === 'subagent' && m.event.state !== 'running').map((m) => m.at);
    const startMs = maxParallelSubagents === 1 ? childRequests.map((r, i) => r.at - (i === 0 ? announced : (ends[i - 1] ?? announced))) : [];
    // From just before the first start (the calls announced) to the last end.
    return { wallMs: last.at - announced, startMs };
  } finally {
    engine.close();
    store.close();
  }
}
