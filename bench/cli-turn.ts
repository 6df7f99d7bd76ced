/**
 * `loom -p` starts its turn at once (issue 21): the time from starting `loom -p` (as a user
 * starts it: bin/loom.js -> dist/cli.js) to the first request reaching the model server,
 * beside a bare `node -e 0` in the same interleaved rounds. Twice: in a new session, and
 * resuming a session of 100,000 messages (compacted once, as such a session would be), which
 * must cost no more. Each run uses its own data folder's compile cache (warm after round 0).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compactSession } from '../src/core/context/auto-compact';
import { ContextBudget } from '../src/core/context/budget';
import { SessionStore } from '../src/core/store/session-store';
import type { ChatMessage } from '../src/shared/types';
import { startScriptedServer, type ScriptedServer } from '../test/support/scripted-server';
import { instantSummariser } from './context';
import { printBesideNode, timeInterleaved, type BesideNode } from './beside-node';
import { progress } from './harness';
import { Corpus } from './store-corpus';

const BIN = fileURLToPath(new URL('../bin/loom.js', import.meta.url));
const ROUNDS = Number(process.env.BENCH_CLI_ROUNDS ?? 30);
const BIG_SESSION = 100_000;
const TARGET_RATIO = 2;

export const cliTurnSection = {
  name: 'CLI turn start: loom -p until its first model request, beside a bare node -e 0',
  run: runTurnBench,
};

async function runTurnBench(): Promise<void> {
  const server = await startScriptedServer();
  server.models = { ids: ['gemma4'], windows: { gemma4: 128_000 } };
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-turn-'));
  try {
    const big = await seedBigSession(home);
    progress(`seeded a session of ${BIG_SESSION.toLocaleString('en-US')} messages, compacted once`);
    const common = ['--data-dir', home, '--base-url', server.baseUrl, '--model', 'gemma4'];
    const runs: BesideNode[] = [
      { label: 'node -e 0', measure: () => untilExit(['-e', '0']) },
      // The openai client speaks through fetch, whose undici Node loads on first use.
      {
        label: 'floor: node and one fetch()',
        measure: () => untilFirstRequest(server, ['-e', `fetch(${JSON.stringify(`${server.baseUrl}/models`)})`], false),
      },
      { label: 'loom -p (a new session)', measure: () => untilFirstRequest(server, [BIN, '-p', 'Hello', ...common]), target: TARGET_RATIO },
      {
        label: `loom --resume ID -p (${BIG_SESSION.toLocaleString('en-US')} messages)`,
        measure: () => untilFirstRequest(server, [BIN, '--resume', big, '-p', 'Hello', ...common]),
        target: TARGET_RATIO,
      },
    ];
    printBesideNode(`loom -p until the first model request (${ROUNDS} interleaved rounds; the server answers at once)`, await timeInterleaved(runs, ROUNDS));
  } finally {
    await server.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

async function seedBigSession(home: string): Promise<string> {
  const corpus = new Corpus(21);
  const store = SessionStore.open(home);
  try {
    const messages: ChatMessage[] = [...corpus.session(BIG_SESSION - 1), { role: 'user', content: 'Go on.' }];
    const { id } = store.create({ model: 'gemma4', messages });
    const budget = new ContextBudget(24_000);
    budget.reset(messages);
    const outcome = await compactSession({ sessionId: id, store, budget, messages, client: instantSummariser });
    if (outcome.status !== 'compacted') throw new Error(`the seeded session was not compacted: ${outcome.status}`);
    store.updateSearchIndex();
    return id;
  } finally {
    store.close();
  }
}

function untilExit(args: string[]): Promise<number> {
  const start = performance.now();
  const child = spawn(process.execPath, args, { stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(performance.now() - start) : reject(new Error(`node ${args.join(' ')} exited ${code}`))));
  });
}

/** Starts the command, answers its turn (`chat`), and returns when its first request (of any route) arrived. */
async function untilFirstRequest(server: ScriptedServer, args: string[], chat = true): Promise<number> {
  const seen = server.requests.length + server.modelRequests.length;
  if (chat) server.enqueue({ text: 'Hi.' });
  const start = Date.now();
  let stderr = '';
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', resolve);
  });
  if (code !== 0) throw new Error(`loom ${args.slice(1, 4).join(' ')} exited ${code}: ${stderr.trim()}`);
  const first = [...server.modelRequests, ...server.requests].map((r) => r.at).sort((a, b) => a - b)[seen];
  if (first === undefined) throw new Error('loom made no request');
  return first - start;
}
