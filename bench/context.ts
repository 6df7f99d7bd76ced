/**
 * Context budget and compaction (docs/DESIGN.md#compaction): the budget's cost per request must stay flat as
 * a session grows, and compacting a 2,000-message session (model call excluded, store
 * write included) must take at most 20 ms.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compactSession } from '../src/core/context/auto-compact';
import { ContextBudget, estimateTotal } from '../src/core/context/budget';
import type { SummaryClient } from '../src/core/context/compactor';
import { SessionStore } from '../src/core/store/session-store';
import type { ChatMessage } from '../src/shared/types';
import { formatMs, formatRatio, percentile, printTable, progress, type BenchSection } from './harness';

const SIZES = [100, 1_000, 10_000];
/** Requests timed per sample: one sample alone would be below the timer's resolution. */
const REQUESTS_PER_SAMPLE = 50;
const BUDGET_SAMPLES = 400;
const BUDGET_WARMUP = 100;
const COMPACT_MESSAGES = 2_000;
/** Issue 19's bookkeeping row: one compaction of a 10,000-message session. */
const BOOKKEEPING_MESSAGES = 10_000;
/** Compaction in steps: a session far bigger than a small model's window. */
const STEPPED_MESSAGES = 100_000;
const STEPPED_WINDOW = 32_000;
const TARGET_STEPPED_MS = 2_000;
const COMPACT_RUNS = 30;
const COMPACT_WARMUP = 3;
const TARGET_COMPACT_MS = 20;
/** "Flat": the per-request cost at 10,000 messages within this factor of the cost at 100. */
const FLAT_FACTOR = 2;

const SUMMARY = 'The user and the agent fixed modules 1-500; every constant was off by one; tests pass.';

export const contextSection: BenchSection = {
  name: 'Context budget and compaction',
  run: runContextBench,
};

export async function runContextBench(): Promise<void> {
  reportBudget(SIZES.map(measureBudget));
  reportCompaction(await measureCompaction(COMPACT_MESSAGES));
  reportCompaction(await measureCompaction(BOOKKEEPING_MESSAGES));
  reportSteps(await measureSteppedCompaction());
  reportUndo(await measureUndo());
}

/** A session of `count` messages: repeated turns of question, tool call, result, answer. */
function session(count: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: 'You are Loom, a careful coding agent.' }];
  for (let n = 0; messages.length < count; n++) {
    const turn: ChatMessage[] = [
      { role: 'user', content: `Turn ${n}: please look at src/module${n}.ts and fix the bug.` },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: `call_${n}`, type: 'function', function: { name: 'read_file', arguments: `{"path":"src/module${n}.ts"}` } }],
      },
      { role: 'tool', tool_call_id: `call_${n}`, content: `export const value${n} = ${n};\n`.repeat(12) },
      { role: 'assistant', content: `Fixed module ${n}: the constant was off by one.` },
    ];
    messages.push(...turn.slice(0, count - messages.length));
  }
  return messages;
}

interface BudgetRow {
  size: number;
  /** add one message + estimate + threshold check, per request. */
  perRequest: { p50: number; p99: number };
  /** What re-counting the whole context before each request would cost instead. */
  recount: number;
}

function measureBudget(size: number): BudgetRow {
  const base = session(size);
  const next = session(REQUESTS_PER_SAMPLE + 1).slice(1);
  const budget = new ContextBudget(24_000);
  const times: number[] = [];
  for (let run = -BUDGET_WARMUP; run < BUDGET_SAMPLES; run++) {
    budget.reset(base); // untimed: the session is back at `size` messages for every sample
    const start = process.hrtime.bigint();
    for (const message of next) {
      budget.add(message);
      if (budget.overThreshold() && budget.estimate() < 0) throw new Error('unreachable');
    }
    const ms = Number(process.hrtime.bigint() - start) / 1e6 / next.length;
    if (run >= 0) times.push(ms);
  }
  times.sort((a, b) => a - b);
  const recounts: number[] = [];
  for (let run = 0; run < 50; run++) {
    const start = process.hrtime.bigint();
    estimateTotal(base);
    recounts.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  recounts.sort((a, b) => a - b);
  return { size, perRequest: { p50: percentile(times, 50), p99: percentile(times, 99) }, recount: percentile(recounts, 50) };
}

function reportBudget(rows: BudgetRow[]): void {
  const micro = (ms: number) => `${(ms * 1000).toFixed(3)} µs`;
  const [firstRow] = rows;
  if (!firstRow) throw new Error('no budget sizes were measured');
  const first = firstRow.perRequest.p50;
  printTable(
    'Budget cost per request (add one message + estimate + threshold check)',
    ['messages in session', 'p50 per request', 'p99 per request', 'vs 100 messages', 'full recount instead (p50)'],
    rows.map((r) => [
      r.size.toLocaleString('en-US'),
      micro(r.perRequest.p50),
      micro(r.perRequest.p99),
      formatRatio(r.perRequest.p50 / first),
      micro(r.recount),
    ]),
  );
  const growth = (rows.at(-1) ?? firstRow).perRequest.p50 / first;
  console.log(`per-request cost flat (10,000 vs 100 within ${FLAT_FACTOR}×): ${growth <= FLAT_FACTOR ? 'yes' : 'NO'} (${formatRatio(growth)})`);
}

/** Answers at once with a fixed summary: the bench times Loom's work, not a model's. */
export const instantSummariser: SummaryClient = {
  settings: { baseUrl: 'bench://instant', apiKey: '', model: 'bench-summariser', timeoutMs: 1_000 },
  chat: async () => ({
    message: { role: 'assistant', content: SUMMARY },
    finishReason: 'stop',
    usage: { prompt_tokens: 0, completion_tokens: 0, estimated: true },
    timing: { latencyMs: 0, generationMs: 0 },
  }),
};

async function measureCompaction(size: number): Promise<CompactionRow> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-context-'));
  const store = SessionStore.open(home);
  try {
    const messages = session(size);
    const ids = Array.from({ length: COMPACT_RUNS + COMPACT_WARMUP }, () => store.create({ model: 'bench', messages }).id);
    progress(`seeded ${ids.length} sessions of ${size.toLocaleString('en-US')} messages`);
    const times: number[] = [];
    let before = 0;
    let after = 0;
    for (const [run, sessionId] of ids.entries()) {
      const budget = new ContextBudget(24_000);
      budget.reset(messages);
      const start = process.hrtime.bigint();
      const outcome = await compactSession({ sessionId, store, budget, messages, client: instantSummariser });
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (outcome.status !== 'compacted') throw new Error(`compaction did not happen: ${outcome.status}`);
      if (run >= COMPACT_WARMUP) times.push(ms);
      ({ before_tokens: before, after_tokens: after } = outcome.compaction);
    }
    return { size, times: times.sort((a, b) => a - b), before, after };
  } finally {
    store.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

interface CompactionRow {
  size: number;
  times: number[];
  before: number;
  after: number;
}

function reportCompaction({ size, times, before, after }: CompactionRow): void {
  const p50 = percentile(times, 50);
  const p99 = percentile(times, 99);
  printTable(
    `Compacting a ${size.toLocaleString('en-US')}-message session (model call excluded; cut, request, new context, store transaction included)`,
    ['runs', 'p50', 'p99', 'target', 'met', 'tokens before → after'],
    [
      [
        String(times.length),
        formatMs(p50),
        formatMs(p99),
        `≤ ${TARGET_COMPACT_MS} ms`,
        p50 <= TARGET_COMPACT_MS ? 'yes' : 'NO',
        `${before.toLocaleString('en-US')} → ${after.toLocaleString('en-US')}`,
      ],
    ],
  );
}

interface SteppedRow {
  totalMs: number;
  modelMs: number;
  requests: number;
  bound: number;
  tokens: number;
}

/**
 * One compaction of a 100,000-message session against a 32,000-token window: Loom's own
 * time (slicing, the requests' JSON, the store) is the wall time less the time spent in
 * the summariser, which answers at once here.
 */
async function measureSteppedCompaction(): Promise<SteppedRow> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-steps-'));
  const store = SessionStore.open(home);
  try {
    const messages = [...session(STEPPED_MESSAGES - 1), { role: 'user', content: 'Go on.' } as ChatMessage];
    const { id } = store.create({ model: 'bench', messages });
    progress(`seeded a session of ${STEPPED_MESSAGES.toLocaleString('en-US')} messages`);
    const tokens = estimateTotal(messages.slice(1, -1));
    let modelMs = 0;
    let requests = 0;
    const client: SummaryClient = {
      settings: instantSummariser.settings,
      chat: async (request) => {
        const start = process.hrtime.bigint();
        requests++;
        const answer = await instantSummariser.chat(request);
        modelMs += Number(process.hrtime.bigint() - start) / 1e6;
        return answer;
      },
    };
    const budget = new ContextBudget(24_000);
    budget.reset(messages);
    const start = process.hrtime.bigint();
    const outcome = await compactSession({ sessionId: id, store, budget, messages, client, window: STEPPED_WINDOW });
    const totalMs = Number(process.hrtime.bigint() - start) / 1e6;
    if (outcome.status !== 'compacted') throw new Error(`compaction did not happen: ${outcome.status}`);
    return { totalMs, modelMs, requests, tokens, bound: Math.ceil(tokens / (STEPPED_WINDOW * 0.75)) + 1 };
  } finally {
    store.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

function reportSteps({ totalMs, modelMs, requests, bound, tokens }: SteppedRow): void {
  const own = totalMs - modelMs;
  printTable(
    `Compacting a ${STEPPED_MESSAGES.toLocaleString('en-US')}-message session (${tokens.toLocaleString('en-US')} tokens) against a ${STEPPED_WINDOW.toLocaleString('en-US')}-token window, in steps`,
    ['measure', 'value', 'target', 'met'],
    [
      ['total time, model excluded', formatMs(own), `≤ ${TARGET_STEPPED_MS} ms`, own <= TARGET_STEPPED_MS ? 'yes' : 'NO'],
      ['summariser requests', String(requests), `≤ ${bound} (⌈tokens / (window × 0.75)⌉ + 1)`, requests <= bound ? 'yes' : 'NO'],
    ],
  );
}

const UNDO_MESSAGES = 10_000;
const UNDO_RUNS = 30;
const TARGET_UNDO_MS = 20;

/** Undoing the last compaction of a 10,000-message session: the store's transaction and the context read back. */
async function measureUndo(): Promise<number[]> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-undo-'));
  const store = SessionStore.open(home);
  try {
    const messages = session(UNDO_MESSAGES);
    const times: number[] = [];
    for (let run = 0; run < UNDO_RUNS + COMPACT_WARMUP; run++) {
      const sessionId = store.create({ model: 'bench', messages }).id;
      const budget = new ContextBudget(24_000);
      budget.reset(messages);
      const outcome = await compactSession({ sessionId, store, budget, messages, client: instantSummariser });
      if (outcome.status !== 'compacted') throw new Error(`compaction did not happen: ${outcome.status}`);
      const start = process.hrtime.bigint();
      const context = store.undoCompaction(sessionId);
      budget.reset(context);
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (context.length !== messages.length) throw new Error('undo did not bring the context back');
      if (run >= COMPACT_WARMUP) times.push(ms);
    }
    progress(`undid ${UNDO_RUNS} compactions of ${UNDO_MESSAGES.toLocaleString('en-US')}-message sessions`);
    return times.sort((a, b) => a - b);
  } finally {
    store.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

function reportUndo(times: number[]): void {
  const p50 = percentile(times, 50);
  printTable(
    `Undoing the last compaction of a ${UNDO_MESSAGES.toLocaleString('en-US')}-message session (store transaction, context read back, budget reset)`,
    ['runs', 'p50', 'p99', 'target', 'met'],
    [[String(times.length), formatMs(p50), formatMs(percentile(times, 99)), `≤ ${TARGET_UNDO_MS} ms`, p50 <= TARGET_UNDO_MS ? 'yes' : 'NO']],
  );
}
