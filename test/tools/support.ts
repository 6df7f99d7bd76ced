/**
 * Test support for the tools: a real temp project folder, a real session database in a
 * temp data folder, and a ToolContext wired to them. Tools are called the way the agent
 * calls them: arguments parsed from JSON by parseToolArguments, then run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PlanState } from '../../src/shared/types';
import { MemoryStore } from '../../src/core/memory/memory-store';
import { SessionStore } from '../../src/core/store/session-store';
import { parseToolArguments } from '../../src/core/tools/arguments';
import type { Tool, ToolContext } from '../../src/core/tools/tool';

export interface Harness {
  /** Real path of the temp project folder. */
  projectDir: string;
  dataDir: string;
  ctx: ToolContext;
  store: SessionStore;
  /** Every plan handed to ctx.plan.set, in order: what the caller would persist. */
  savedPlans: PlanState[];
  /** Questions passed to ctx.askUser. */
  questions: string[];
  /** The next answers ctx.askUser gives (null: no answer). */
  answers: (string | null)[];
  write(rel: string, content: string | Buffer): string;
  cleanup(): void;
}

export function tempDir(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

export function makeHarness(overrides: Partial<ToolContext> = {}): Harness {
  const root = tempDir('loom-tools-');
  const projectDir = path.join(root, 'project');
  const dataDir = path.join(root, 'data');
  fs.mkdirSync(projectDir);
  const store = SessionStore.open(dataDir);
  const session = store.create({ cwd: projectDir });
  const h: Harness = {
    projectDir,
    dataDir,
    store,
    savedPlans: [],
    questions: [],
    answers: [],
    ctx: {
      projectDir,
      sessionId: session.id,
      signal: new AbortController().signal,
      toolTimeoutMs: 10_000,
      // Backed by the real store, as the agent wires it: what a tool sets is saved with the session.
      plan: {
        get: () => store.getPlan(session.id),
        set: (next) => {
          store.savePlan(session.id, next);
          h.savedPlans.push(next);
        },
      },
      askUser: async (question) => {
        h.questions.push(question);
        return h.answers.length ? h.answers.shift()! : null;
      },
      memory: new MemoryStore(store.db),
      sessions: store,
      ...overrides,
    },
    write(rel, content) {
      const abs = path.join(projectDir, rel);
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      fs.writeFileSync(abs, content);
      return abs;
    },
    cleanup() {
      store.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
  return h;
}

/** Parses JSON arguments as the agent loop does, then runs the tool. */
export async function call(tool: Tool, args: object | string, ctx: ToolContext): Promise<string> {
  const parsed = parseToolArguments(tool, typeof args === 'string' ? args : JSON.stringify(args));
  if (!parsed.ok) throw new Error(`unexpected validation error: ${parsed.error}`);
  return tool.run(parsed.args, ctx);
}
