/**
 * run_subagent (docs/DESIGN.md#sub-agents): hands a task to an agent that works in a
 * session of its own and answers with its final reply. The tool only checks and forwards:
 * the child runs in the agent layer (agent/subagent.ts), which the session offers through
 * the context; a session offered none (a sub-agent's own, by default) is told so.
 */
import { z } from 'zod';
import { RUN_SUBAGENT } from '../../shared/subagents';
import { LoomError } from '../errors';
import { defineTool } from './tool';

export const runSubagentTool = defineTool({
  name: RUN_SUBAGENT,
  description:
    'Start a sub-agent: an agent (such as explore, plan or build) that works on one task in a fresh context of its own ' +
    'and answers with its final reply, which is all you receive. Give it everything it needs in the task; it cannot see this conversation. ' +
    'Several run_subagent calls in one reply run at the same time.',
  // Always allowed: each of the child's own tool calls goes through the permission gate.
  effects: { kind: 'interact' },
  schema: z.strictObject({
    agent: z.string().trim().min(1).max(64).describe('The agent to run, by name.'),
    task: z.string().trim().min(1).max(20_000).describe('What the sub-agent should do and report back, in full.'),
  }),
  async run(args, ctx) {
    if (!ctx.runSubagent) throw new LoomError('a sub-agent cannot start sub-agents of its own; do the work yourself.', 'subagent_depth');
    return ctx.runSubagent(args);
  },
});
