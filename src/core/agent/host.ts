/**
 * What the agent needs from whoever drives it (the engine, and through it the REPL or the
 * UI): a place to send events, and a person to ask. Both questions resolve to "no" when
 * nobody can answer (end of input, a closed window, a stopped turn).
 */
import type { EngineEvent } from '../../shared/engine-events';

export interface ApprovalRequest {
  tool: string;
  /** What would happen, in one or a few lines. */
  summary: string;
  /** Why the user is asked (the policy label). */
  label: string;
}

export interface AgentHost {
  emit(event: EngineEvent): void;
  approve(request: ApprovalRequest): Promise<boolean>;
  ask(question: string): Promise<string | null>;
}
