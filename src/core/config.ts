/**
 * Run-time configuration of the engine, whatever front end (CLI, desktop, browser) set it.
 * The defaults and why: docs/DESIGN.md#command-line.
 */
import type { PermissionMode } from '../shared/settings';

export { PERMISSION_MODES, type PermissionMode } from '../shared/settings';

export interface LoomConfig {
  dataDir: string;
  baseUrl: string;
  model: string;
  apiKey: string;
  maxContextTokens: number;
  /** The model's context window in tokens, when the user states it (--model-window); else learnt (docs/DESIGN.md#the-models-window). */
  modelWindow?: number;
  mode: PermissionMode;
  /** false: no AGENTS.md / CLAUDE.md in the system prompt (--no-project-instructions); default on. */
  projectInstructions?: boolean;
  /** The agent new sessions start with (--agent); undefined: the default, build (docs/DESIGN.md#agents). */
  agent?: string;
  /** Names of the tools offered to the model; undefined means all. */
  tools?: string[];
  toolTimeoutSec: number;
  /** Bound on one whole model request, the streamed reply included. */
  llmTimeoutSec: number;
  /** Bound on the server's silence: before it answers, and between streamed chunks. */
  llmIdleTimeoutSec: number;
  maxTurns: number;
  maxToolCalls: number;
  /** --max-cost-usd covers a session and all its sub-agents together. */
  maxCostUsd: number;
  /** How many run_subagent calls of one reply run at once (--max-parallel-subagents); default 3 (docs/DESIGN.md#sub-agents). */
  maxParallelSubagents?: number;
  approvePlan: boolean;
  /** Where audit logs go; defaults to <dataDir>/audit. */
  logDir?: string;
  /** Environment variables tools get on top of the base allowlist (security/tool-env.ts). */
  passEnv?: string[];
  /** Days a deleted session stays in the Trash before it is purged (--trash-days, the app's setting); default 30 (docs/DESIGN.md#trash). */
  trashDays?: number;
  /** The MCP configuration named with --mcp-config; defaults to <dataDir>/mcp.json (docs/DESIGN.md#mcp-servers). */
  mcpConfigFile?: string;
}

export const DEFAULTS = {
  baseUrl: 'http://localhost:11434/v1',
  model: 'gemma4',
  maxContextTokens: 24000,
  mode: 'default' as PermissionMode,
  toolTimeoutSec: 120,
  llmTimeoutSec: 600,
  llmIdleTimeoutSec: 120,
  maxTurns: 40,
  maxToolCalls: 200,
  maxCostUsd: 5.0,
  maxParallelSubagents: 3,
};
