/**
 * What the agent needs from whoever drives it (the engine, and through it the REPL or the
 * UI): a place to send events, and a person to ask. Both questions resolve to "no" (deny, null) when
 * nobody can answer (end of input, a closed window, a stopped turn).
 */
import type { ApprovalAnswer, ApprovalPreview, GrantOffer, ToolEffect } from '../../shared/approvals';
import type { EngineEvent } from '../../shared/engine-events';

export interface ApprovalRequest {
  tool: string;
  /** What the tool declares it does; null for a tool this session does not know. */
  effect: ToolEffect | null;
  /** What would happen, in full. */
  summary: string;
  /** Why the user is asked (the policy label). */
  label: string;
  /** The change as a diff, or the whole command; null when the summary says it all. */
  preview: ApprovalPreview | null;
  /** What "allow for this session" grants; null when it is not offered. */
  offer: GrantOffer | null;
}

export interface AgentHost {
  emit(event: EngineEvent): void;
  approve(request: ApprovalRequest): Promise<ApprovalAnswer>;
  ask(question: string): Promise<string | null>;
}
