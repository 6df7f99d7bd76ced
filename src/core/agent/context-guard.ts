/**
 * The loop's side of compaction (context/auto-compact.ts does the work): before every
 * regular request compact when over the threshold and refuse to send what cannot fit; on
 * demand (\compact) compact now. Either way the session adopts the new context and it is
 * audited.
 */
import type { CarriedDropped } from '../context/carried';
import { compactSession, ensureContextFits, type CompactionOutcome, type CompactSessionOptions, type ForcedCompactionOutcome } from '../context/auto-compact';
import { askServerWindow, SERVER_WINDOW_TIMEOUT_MS } from '../model/server-window';
import { carriedInput } from './carried-input';
import { auditedClient } from './model-call';
import type { AgentSession } from './session';

/** Throws the hard-stop LoomError when the context cannot fit: no request may be sent. */
export async function fitContext(session: AgentSession, signal: AbortSignal): Promise<void> {
  await askServerWindowOnce(session);
  adopt(session, await ensureContextFits(options(session, signal)), 'auto');
}

/**
 * The server is asked for the model's window the first time Loom meets the pair (and,
 * when it said nothing, a day later): what it says is kept for every process.
 */
async function askServerWindowOnce(session: AgentSession): Promise<void> {
  const { baseUrl, apiKey, model } = session.client.settings;
  // Looked up in the store once per server and model this session meets, not before every request.
  const pair = `${baseUrl}\n${model}`;
  if (session.windowAskedFor === pair) return;
  session.windowAskedFor = pair;
  if (!session.windows.shouldAskServer(baseUrl, model)) return;
  const tokens = await askServerWindow({ baseUrl, apiKey, timeoutMs: SERVER_WINDOW_TIMEOUT_MS }, model);
  session.windows.record(baseUrl, model, 'server', tokens);
  session.refreshWindow();
}

export async function compactNow(session: AgentSession, signal: AbortSignal, how: { focus?: string; upTo?: number } = {}): Promise<ForcedCompactionOutcome> {
  await askServerWindowOnce(session);
  const outcome = await compactSession({ ...options(session, signal), ...how });
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
    window: session.window?.tokens ?? null,
    carried: () => carriedInput(session),
    onWindowLearned: (tokens) => session.learnWindow(tokens),
    timeoutMs: session.config.llmTimeoutSec * 1000,
    signal,
    onEvent: (event) => session.host.emit(event),
  };
}

function adopt(session: AgentSession, outcome: CompactionOutcome, trigger: 'auto' | 'manual'): void {
  if (outcome.status === 'compacted') {
    session.adoptContext(outcome.messages);
    if (outcome.carriedDropped) session.host.emit({ type: 'notice', sessionId: session.id, level: 'warning', text: droppedNotice(outcome.carriedDropped) });
    const { before_tokens, after_tokens } = outcome.compaction;
    session.audit.write('context_compacted', { trigger, before_tokens, after_tokens, usage: outcome.usage });
    session.emitUsage();
  } else if (outcome.status === 'failed') {
    session.audit.write('context_compacted', { trigger, failed: true, error: outcome.error });
  }
}

/** One sentence for what the carried message had to leave out to stay within its bound. */
function droppedNotice(d: CarriedDropped): string {
  const parts = [
    d.files ? `${d.files} of the oldest changed-file lines` : '',
    d.failing ? 'the last failing command' : '',
    d.scratchpad ? 'the scratchpad' : '',
    d.todos ? `${d.todos} plan item${d.todos === 1 ? '' : 's'}` : '',
    d.pins ? `${d.pins} of the oldest pins` : '',
  ].filter(Boolean);
  return `What compaction carries did not fit a quarter of the context budget: it left out ${parts.join(', ')}. Raise --max-context-tokens, or unpin what no longer matters.`;
}
