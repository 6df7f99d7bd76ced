/**
 * Whether one tool call may run: the hard policy and the permission mode (decide, in
 * security/permissions.ts), --approve-plan before the first action tool, and the user's
 * answer when the mode asks.
 * Every decision is audited; a refusal comes back as the text the model receives.
 */
import type { PlanState } from '../../shared/types';
import { decide } from '../security/permissions';
import type { Tool, ToolCategory } from '../tools/tool';
import type { AgentSession } from './session';

export type Permission = { allowed: true } | { allowed: false; result: string };

/** Tools that change something or reach out: --approve-plan asks before the first one. */
const ACTION_CATEGORIES: ReadonlySet<ToolCategory> = new Set(['write', 'exec', 'network']);

export async function checkPermission(
  session: AgentSession,
  tool: Tool,
  args: unknown,
  opts: { preApproved?: boolean; callId?: string } = {},
): Promise<Permission> {
  const decision = await decide({ tool, args, mode: session.config.mode, projectDir: session.projectDir });
  // The arguments say what was allowed or refused (the audit log redacts and cuts them).
  const record = (outcome: string, by: string, label?: string) =>
    session.audit.write('permission_decision', { tool: tool.name, call_id: opts.callId, args, decision: outcome, by, label, mode: session.config.mode });

  if (decision.action === 'deny') {
    record('deny', 'policy', decision.label);
    return { allowed: false, result: `Denied by policy (${decision.label}): this action is never allowed. Do not retry it.` };
  }
  if (session.config.approvePlan && !session.planApproved && ACTION_CATEGORIES.has(tool.category)) {
    const approved = await session.host.approve({
      tool: tool.name,
      summary: planSummary(session.plan),
      label: 'approve the plan before the first action',
    });
    record(approved ? 'allow' : 'deny', 'user', 'approve-plan');
    if (!approved) return { allowed: false, result: 'Denied by the user: the plan was not approved. Ask the user how to proceed.' };
    session.planApproved = true;
  }
  if (decision.action === 'ask' && !opts.preApproved) {
    const approved = await session.host.approve({ tool: tool.name, summary: decision.summary, label: decision.label });
    record(approved ? 'allow' : 'deny', 'user', decision.label);
    if (!approved) {
      return { allowed: false, result: 'Denied by the user: this action was not allowed. Do not retry it; ask the user or choose another way.' };
    }
    return { allowed: true };
  }
  record('allow', opts.preApproved ? 'user' : 'mode');
  return { allowed: true };
}

/** What --approve-plan shows: the scratchpad and the todo list. */
function planSummary(plan: PlanState): string {
  const scratchpad = plan.scratchpad.trim() || '(the scratchpad is empty)';
  const todos = plan.todos.map((t) => `  [${t.status}] ${t.text}`).join('\n');
  return `Plan (scratchpad):\n${scratchpad}${todos ? `\nTodos:\n${todos}` : ''}`;
}
