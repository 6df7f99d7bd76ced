/**
 * `loom --import-from` (issue 12): importing 1,000 Claude Code sessions of 200 messages each,
 * generated as JSONL in a temp folder, then importing the same folder again unchanged.
 * The second run must be at least 20× faster: unchanged files are skipped by size and mtime.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importFiles, runImport } from '../src/core/import/run';
import { SessionStore } from '../src/core/store/session-store';
import { formatMs, formatRatio, printTable, progress, timeOnceAsync, type BenchSection } from './harness';
import { Corpus } from './store-corpus';

const SESSIONS = Number(process.env.BENCH_IMPORT_SESSIONS ?? 1_000);
const MESSAGES_PER_SESSION = 200;
/** One assistant message in this many makes a tool call (answered by a tool result). */
const CALL_EVERY = 4;
const TARGET_SPEEDUP = 20;

export const importSection: BenchSection = {
  name: 'Importing from other agents: 1,000 Claude Code sessions, then again unchanged',
  run: runImportBench,
};

async function runImportBench(): Promise<void> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-import-'));
  try {
    const projects = path.join(home, 'projects');
    writeSessions(projects);
    const store = SessionStore.open(path.join(home, 'data'));
    try {
      await timeImportTwice(
        'Importing from other agents',
        store,
        async () => runImport(store, await importFiles({ source: 'claude-code', path: projects, home })),
        () => {
          const messages = store.list({ limit: -1 }).reduce((n, s) => n + s.message_count, 0);
          return `import ${SESSIONS.toLocaleString('en-US')} sessions × ${MESSAGES_PER_SESSION} messages (${messages.toLocaleString('en-US')} stored)`;
        },
      );
    } finally {
      store.close();
    }
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/**
 * Times a first import, with the search index it owes (a session must be searchable once
 * it returns), then the same import again unchanged, and prints both against the speed-up
 * an unchanged import must reach. `firstRow` names the first import once it is done.
 */
export async function timeImportTwice(title: string, store: SessionStore, importOnce: () => Promise<unknown>, firstRow: () => string): Promise<void> {
  const first = await timeOnceAsync(async () => {
    await importOnce();
    store.updateSearchIndex();
  });
  progress(`  first import: ${formatMs(first)}`);
  const again = await timeOnceAsync(importOnce);
  progress(`  re-import unchanged: ${formatMs(again)}`);
  const speedup = first / again;
  printTable(
    title,
    ['operation', 'Loom', 'target', 'met'],
    [
      [firstRow(), formatMs(first), '', ''],
      [
        'import again, unchanged',
        formatMs(again),
        `≥ ${TARGET_SPEEDUP}× faster`,
        speedup >= TARGET_SPEEDUP ? `yes (${formatRatio(speedup)})` : `NO (${formatRatio(speedup)})`,
      ],
    ],
  );
}

/** SESSIONS files in Claude Code's layout, a handful of project folders. */
function writeSessions(projects: string): void {
  const corpus = new Corpus(12);
  for (let s = 0; s < SESSIONS; s++) {
    const sessionId = `00000000-0000-4000-8000-${String(s).padStart(12, '0')}`;
    const dir = path.join(projects, `-home-bench-project-${s % 20}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${sessionId}.jsonl`), sessionLines(sessionId, corpus));
  }
  progress(`  wrote ${SESSIONS} session files`);
}

/** User prompt, assistant answer (every CALL_EVERY-th one a tool call and its result instead), until 200 messages. */
function sessionLines(sessionId: string, corpus: Corpus): string {
  const lines: string[] = [];
  let parent: string | null = null;
  let n = 0;
  const entry = (type: string, message: unknown) => {
    const uuid = `${sessionId.slice(0, 24)}${String(n++).padStart(12, '0')}`;
    lines.push(
      JSON.stringify({
        parentUuid: parent,
        isSidechain: false,
        cwd: '/home/bench/project',
        sessionId,
        version: '2.0.55',
        type,
        message,
        uuid,
        timestamp: new Date(Date.UTC(2025, 10, 1, 0, 0, n)).toISOString(),
      }),
    );
    parent = uuid;
  };
  let turn = 0;
  while (n < MESSAGES_PER_SESSION) {
    if (turn % CALL_EVERY === CALL_EVERY - 1 && n + 2 <= MESSAGES_PER_SESSION) {
      const id = `toolu_${sessionId.slice(-6)}_${turn}`;
      entry('assistant', {
        id: `msg_${turn}`,
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: `${corpus.word()}.ts` } }],
      });
      entry('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: corpus.sentence() }] });
    } else {
      entry(
        turn % 2 === 0 ? 'user' : 'assistant',
        turn % 2 === 0
          ? { role: 'user', content: corpus.sentence() }
          : { id: `msg_${turn}`, role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: corpus.sentence() }] },
      );
    }
    turn++;
  }
  return `${lines.join('\n')}\n`;
}
