/**
 * Whether one tool call may run: the session's agent first (a tool it does not use, a write
 * or command under a read-only agent: agents/narrow.ts), then the hard policy and the
 * permission mode (decide, in security/permissions.ts), --approve-plan before the first action tool, the session's
 * grants, and the user's answer when the mode asks ("allow for this session" adds a grant).
 * Every decision, grant and revoke is audited; a refusal comes back as the text the model receives.
 */
import type { GrantOffer } from '../../shared/approvals';
import type { PlanState } from '../../shared/types';
import { refusal } from '../agents/narrow';
import { decide } from '../security/permissions';
import { ACTION_EFFECTS } from '../security/tool-effects';
import type { Tool } from '../tools/tool';
import type { AgentSession } from './session';

export type Permission = { allowed: true } | { allowed: false; result: string };

export async function checkPermission(
  session: AgentSession,
  tool: Tool,
  args: unknown,
  opts: { preApproved?: boolean; callId?: string } = {},
): Promise<Permission> {
  const refused = refusal(session.agent, tool);
  if (refused) {
    session.audit.write('permission_decision', {
      tool: tool.name,
      call_id: opts.callId,
      args,
      decision: 'deny',
      by: 'agent',
      label: refused,
      mode: session.config.mode,
    });
    return {
      allowed: false,
      result: `Denied (${refused}): this agent may not do this, whatever is asked. Do not retry it; the user can switch to another agent.`,
    };
  }
  const decision = await decide({ tool, args, mode: session.config.mode, projectDir: session.projectDir, grants: session.grants });
  // The arguments say what was allowed or refused (the audit log redacts and cuts them).
  const record = (outcome: string, by: string, label?: string, grant?: string) =>
    session.audit.write('permission_decision', { tool: tool.name, call_id: opts.callId, args, decision: outcome, by, label, grant, mode: session.config.mode });

  if (decision.action === 'deny') {
    record('deny', 'policy', decision.label);
    return { allowed: false, result: `Denied by policy (${decision.label}): this action is never allowed. Do not retry it.` };
  }
  const effect = tool.effects.kind;
  if (session.config.approvePlan && !session.planApproved && ACTION_EFFECTS.has(effect)) {
    const answer = await session.host.approve({
      tool: tool.name,
      effect,
      summary: planSummary(session.plan),
      label: 'approve the plan before the first action',
      preview: null,
      offer: null,
    });
    record(answer === 'deny' ? 'deny' : 'allow', 'user', 'approve-plan');
    if (answer === 'deny') return { allowed: false, result: 'Denied by the user: the plan was not approved. Ask the user how to proceed.' };
    session.planApproved = true;
  }
  if (decision.action === 'ask' && !opts.preApproved) {
    const { summary, label, preview, offer } = decision;
    const answer = await session.host.approve({ tool: tool.name, effect, summary, label, preview, offer });
    record(answer === 'deny' ? 'deny' : 'allow', 'user', label);
    if (answer === 'deny') {
      return { allowed: false, result: 'Denied by the user: this action was not allowed. Do not retry it; ask the user or choose another way.' };
    }
    if (answer === 'session' && offer) grantForSession(session, offer);
    return { allowed: true };
  }
  if (decision.action === 'allow' && decision.grant) record('allow', 'grant', undefined, decision.grant.id);
  else if (decision.action === 'allow' && decision.knownSafe) record('allow', 'known-safe', `known-safe: ${decision.knownSafe.join(', ')}`);
  else record('allow', opts.preApproved ? 'user' : 'mode');
  return { allowed: true };
}

function grantForSession(session: AgentSession, offer: GrantOffer): void {
  const grant = session.grants.add(offer);
  session.audit.write('permission_grant', { grant });
  session.emitGrants();
}

/** What --approve-plan shows: the scratchpad and the todo list. */
function planSummary(plan: PlanState): string {
  const scratchpad = plan.scratchpad.trim() || '(the scratchpad is empty)';
  const todos = plan.todos.map((t) => `  [${t.status}] ${t.text}`).join('\n');
  return `Plan (scratchpad):\n${scratchpad}${todos ? `\nTodos:\n${todos}` : ''}`;
}
