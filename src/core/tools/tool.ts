/**
 * The shape every tool has. A tool validates nothing itself (its zod schema does that in
 * parseToolArguments), never asks for permission (the agent loop does, through
 * permissions.decide) and enforces only hard limits that no mode may lift: file access
 * inside the project folder, the network policy, the shell denylist.
 * A tool reports a problem the model can act on by throwing a LoomError; the message
 * becomes the tool result.
 */
import type { z } from 'zod';
import type { PlanState } from '../../shared/types';
import type { MemoryStore } from '../memory/memory-store';
import type { EffectDeclaration } from '../security/tool-effects';
import type { SessionStore } from '../store/session-store';

export interface ToolContext {
  /** Real path of the project folder. */
  projectDir: string;
  sessionId: string;
  signal: AbortSignal;
  toolTimeoutMs: number;
  /** The session's plan; the caller persists what `set` receives. */
  plan: { get(): PlanState; set(plan: PlanState): void };
  /** Resolves to null when there is no answer (end of input, dismissed). */
  askUser(question: string): Promise<string | null>;
  memory: MemoryStore;
  sessions: SessionStore;
  allowNetworkInShell?: boolean;
  /** Environment variables the user passes to tools on top of the base allowlist. */
  passEnv?: readonly string[];
  /** Runs a sub-agent for this very call and resolves to its bounded answer; absent where sub-agents may not start (depth). */
  runSubagent?(request: { agent: string; task: string }): Promise<string>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- deliberate: ALL_TOOLS holds tools of different argument types.
export interface Tool<A = any> {
  name: string;
  description: string;
  /** What the tool does (docs/DESIGN.md#permissions-and-security): the permission gate and the windows go by it. */
  effects: EffectDeclaration<A>;
  /** A z.strictObject with bounds on every field. */
  schema: z.ZodType<A>;
  /**
   * The JSON Schema offered to the model when it is not the schema's own: an MCP server's
   * tool, whose server checks the arguments against it (the schema then only requires an object).
   */
  parameters?: Record<string, unknown>;
  run(args: A, ctx: ToolContext): Promise<string>;
}

/** Lets TypeScript infer a tool's argument type from its schema. */
export function defineTool<A>(tool: Tool<A>): Tool<A> {
  return tool;
}
