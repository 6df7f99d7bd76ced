/**
 * The rule that an agent cannot widen the boundary: what a session runs with is the
 * narrower of the session's settings and its agent's, field by field. The permission gate
 * (agent/permission-gate.ts) asks `refusal` for every call, so a tool the agent does not
 * use, or an action a read-only agent may not take, is refused there whatever the model asks.
 */
import type { ToolEffect } from '../../shared/approvals';
import type { LoomConfig, PermissionMode } from '../config';
import { AGENT_ACCESS, type AgentDefinition } from './definition';

/** The session's settings as the agent narrows them: the permission mode, the caps. */
export function narrowConfig(config: LoomConfig, agent: AgentDefinition): LoomConfig {
  return {
    ...config,
    mode: narrowerMode(config.mode, agent.access),
    maxTurns: Math.min(config.maxTurns, agent.maxTurns ?? Infinity),
    maxToolCalls: Math.min(config.maxToolCalls, agent.maxToolCalls ?? Infinity),
  };
}

function narrowerMode(mode: PermissionMode, access: AgentDefinition['access']): PermissionMode {
  if (access === undefined) return mode;
  // Read-only is narrower than every mode: the gate refuses its writes and commands, and the rest is asked as in default.
  if (access === 'readOnly') return 'default';
  return AGENT_ACCESS.indexOf(access) < AGENT_ACCESS.indexOf(mode) ? access : mode;
}

/** Effects a read-only agent may never take: every write, edit and command. */
const READ_ONLY_REFUSED: ReadonlySet<ToolEffect> = new Set(['write-files', 'run-commands']);

/** Why the agent may not use this tool, or null when it may. */
export function refusal(agent: AgentDefinition, tool: { name: string; effects: { kind: ToolEffect } }): string | null {
  if (agent.tools && !agent.tools.includes(tool.name)) return `the ${agent.name} agent does not use ${tool.name}`;
  if (agent.access === 'readOnly' && READ_ONLY_REFUSED.has(tool.effects.kind)) return `the ${agent.name} agent is read-only`;
  return null;
}

/** The tools offered to the model under the agent: those it may use. */
export function offeredTools<T extends { name: string; effects: { kind: ToolEffect } }>(agent: AgentDefinition, tools: readonly T[]): T[] {
  return tools.filter((tool) => refusal(agent, tool) === null);
}
