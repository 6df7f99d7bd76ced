/**
 * What the agent needs from whoever drives it (the engine, and through it the REPL or the
 * UI): a place to send events, and a person to ask. Both questions resolve to "no" (deny, null) when
 * nobody can answer (end of input, a closed window, a stopped turn).
 */
import type { ApprovalAnswer } from '../../shared/approvals';
import type { ApprovalDetails, EngineEvent } from '../../shared/engine-events';

/** What an approval asks: the same details the approval event carries to a window. */
export type ApprovalRequest = ApprovalDetails;

export interface AgentHost {
  emit(event: EngineEvent): void;
  approve(request: ApprovalRequest): Promise<ApprovalAnswer>;
  ask(question: string): Promise<string | null>;
}
