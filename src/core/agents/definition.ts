/**
 * What an agent is (docs/DESIGN.md#agents): a name, a description, a system prompt, the
 * tools it may use, and optionally its model, permission ceiling and limits. The same
 * definition serves the session's agent and, later, a child session's: nothing here
 * depends on who runs it.
 *
 * An agent only ever narrows: its `access` is a ceiling on the session's permission mode,
 * its `tools` a subset of the session's, its limits a lower bound on the session's caps
 * (narrow.ts). No field can lift what the session's mode or the hard policy refuse.
 */
import { z } from 'zod';
import { PERMISSION_MODES } from '../config';
import { AGENT_NAME } from './agent-name';

/** From narrowest to widest: `readOnly` refuses every write, edit and command; the rest are the permission modes. */
export const AGENT_ACCESS = ['readOnly', ...PERMISSION_MODES] as const;
export type AgentAccess = (typeof AGENT_ACCESS)[number];

/** Where a definition came from, in precedence order: a project's file wins over the data folder's, which wins over none. */
export type AgentScope = 'project' | 'data' | 'built-in';
export type AgentFormat = 'loom' | 'claude-code' | 'opencode' | 'built-in';

export const agentDefinitionSchema = z.strictObject({
  name: z.string().regex(AGENT_NAME, 'letters, digits, ".", "_" or "-", up to 64'),
  description: z.string().trim().min(1, 'a description is required').max(1000),
  /** Appended to Loom's system prompt while the agent is in force. */
  prompt: z.string().max(64 * 1024),
  /** Loom tool names (MCP tools by their Loom names); absent: every tool the session has. */
  tools: z.array(z.string().min(1).max(200)).max(500).optional(),
  model: z.string().trim().min(1).max(200).optional(),
  access: z.enum(AGENT_ACCESS).optional(),
  maxTurns: z.number().int().min(1).max(10_000).optional(),
  maxToolCalls: z.number().int().min(1).max(100_000).optional(),
});

export type AgentSpec = z.infer<typeof agentDefinitionSchema>;

export interface AgentDefinition extends AgentSpec {
  scope: AgentScope;
  format: AgentFormat;
  /** The file it was read from; absent for a built-in. */
  file?: string;
}

/** A file that could not be used, or a field of one that Loom does not support: one line for the user. */
export interface AgentProblem {
  file: string;
  /** The front-matter field, when the problem is one field's. */
  field?: string;
  message: string;
}

export function problemLine(p: AgentProblem): string {
  return `${p.file}${p.field ? `: ${p.field}` : ''}: ${p.message}`;
}
