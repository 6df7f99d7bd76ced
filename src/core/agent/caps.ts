/**
 * The limits that stop a turn cleanly: --max-turns (model requests per user message),
 * --max-tool-calls (per open session), --max-cost-usd (the session's cumulative cost) and
 * the user's stop. A stop is not an error: the turn ends, the session stays consistent.
 */
import { counted } from '../counted';
import type { AgentSession } from './session';
import { STOPPED_REASON } from './tool-runner';

export interface TurnStop {
  /** The audit event that records it. */
  event: 'iteration_cap_hit' | 'cost_limit_hit' | 'session_abort';
  /** Completes "Not run: …" and "Stopped: …". */
  reason: string;
}

export function stopBeforeRequest(session: AgentSession, requests: number, signal: AbortSignal): TurnStop | null {
  if (signal.aborted) return { event: 'session_abort', reason: STOPPED_REASON };
  const { maxTurns, maxCostUsd } = session.config;
  if (requests >= maxTurns) {
    return { event: 'iteration_cap_hit', reason: `reached --max-turns (${counted(maxTurns, 'model request')} for one message)` };
  }
  const cost = familyCost(session);
  if (costLimitReached(session, cost)) {
    const whose = session.isChild ? 'this session and its parent and sub-agents have' : 'this session has';
    return { event: 'cost_limit_hit', reason: `reached --max-cost-usd ($${maxCostUsd.toFixed(2)}; ${whose} cost $${cost.toFixed(4)})` };
  }
  return null;
}

/** What counts against --max-cost-usd: the session at the top of the family and all its sub-agents (docs/DESIGN.md#sub-agents). */
function familyCost(session: AgentSession): number {
  return session.store.getFamilyUsage(session.costRoot).total.cost_usd;
}

/** Local models cost nothing: a cost of 0 never trips the cap, whatever its value. */
export function costLimitReached(session: AgentSession, cost = familyCost(session)): boolean {
  return cost > 0 && cost >= session.config.maxCostUsd;
}

export function stopBeforeTool(session: AgentSession, signal: AbortSignal): TurnStop | null {
  if (signal.aborted) return { event: 'session_abort', reason: STOPPED_REASON };
  const { maxToolCalls } = session.config;
  if (session.toolCalls >= maxToolCalls) {
    return { event: 'iteration_cap_hit', reason: `reached --max-tool-calls (${counted(maxToolCalls, 'tool call')} in this session)` };
  }
  return null;
}

/** Audits the stop and tells the user why the turn ended. */
export function reportStop(session: AgentSession, stop: TurnStop): void {
  session.audit.write(stop.event, { reason: stop.reason });
  session.host.emit({ type: 'notice', sessionId: session.id, level: 'warning', text: `Stopped: ${stop.reason}.` });
}
