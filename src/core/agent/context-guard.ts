/**
 * The loop's side of compaction (context/auto-compact.ts does the work): before every
 * regular request compact when over the threshold and refuse to send what cannot fit; on
 * demand (\compact) compact now. Either way the session adopts the new context and it is
 * audited.
 */
import { compactSession, ensureContextFits, type CompactionOutcome, type CompactSessionOptions, type ForcedCompactionOutcome } from '../context/auto-compact';
import { auditedClient } from './model-call';
import type { AgentSession } from './session';

/** Throws the hard-stop LoomError when the context cannot fit: no request may be sent. */
export async function fitContext(session: AgentSession, signal: AbortSignal): Promise<void> {
  adopt(session, await ensureContextFits(options(session, signal)), 'auto');
}

export async function compactNow(session: AgentSession, signal: AbortSignal): Promise<ForcedCompactionOutcome> {
  const outcome = await compactSession(options(session, signal));
  adopt(session, outcome, 'manual');
  return outcome;
}

function options(session: AgentSession, signal: AbortSignal): CompactSessionOptions {
  return {
    sessionId: session.id,
    store: session.store,
    budget: session.budget,
    messages: session.messages,
    client: auditedClient(session, 'compaction'),
    timeoutMs: session.config.llmTimeoutSec * 1000,
    signal,
    onEvent: (event) => session.host.emit(event),
  };
}

function adopt(session: AgentSession, outcome: CompactionOutcome, trigger: 'auto' | 'manual'): void {
  if (outcome.status === 'compacted') {
    session.adoptContext(outcome.messages);
    const { before_tokens, after_tokens } = outcome.compaction;
    session.audit.write('context_compacted', { trigger, before_tokens, after_tokens, usage: outcome.usage });
    session.emitUsage();
  } else if (outcome.status === 'failed') {
    session.audit.write('context_compacted', { trigger, failed: true, error: outcome.error });
  }
}
