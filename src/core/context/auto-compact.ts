/**
 * Compaction as the agent loop uses it: decide, summarise, persist atomically, keep the
 * budget in step, and stop a request that cannot fit the hard budget
 * (docs/DESIGN.md#compaction).
 */
import type { EngineEvent } from '../../shared/engine-events';
import type { ChatMessage, Compaction } from '../../shared/types';
import { LoomError, errorMessage } from '../errors';
import type { SessionStore } from '../store/session-store';
import { estimateTotal, type ContextBudget } from './budget';
import { carriedMessage, type CarriedDropped, type CarriedInput } from './carried';
import { CompactionRejectedError, NOTHING_TO_COMPACT_MESSAGE, compactContext, compactableCut, type CompactionUsage, type SummaryClient } from './compactor';

/** Of the budget, what the carried message may take: the rest is room to work. */
const CARRIED_SHARE = 0.25;

function anythingDropped(d: CarriedDropped): boolean {
  return d.files > 0 || d.failing || d.scratchpad || d.todos > 0 || d.pins > 0;
}

export type CompactionEvent = Extract<EngineEvent, { type: 'compaction' }>;

export type CompactionOutcome =
  | { status: 'not_needed'; messages: ChatMessage[] }
  | { status: 'compacted'; messages: ChatMessage[]; compaction: Compaction; usage: CompactionUsage; steps: number; carriedDropped: CarriedDropped | null }
  | { status: 'nothing_to_compact'; messages: ChatMessage[]; notice: string }
  /** The context is unchanged; `error` says why in one line. */
  | { status: 'failed'; messages: ChatMessage[]; error: string };

/** What a compaction that was asked for can come to: it is never "not needed". */
export type ForcedCompactionOutcome = Exclude<CompactionOutcome, { status: 'not_needed' }>;

export interface CompactSessionOptions {
  sessionId: string;
  store: Pick<SessionStore, 'recordCompaction' | 'recordUsage'>;
  /** Reset to the new context after a compaction. */
  budget: ContextBudget;
  /** The session's working context, as stored. Never mutated. */
  messages: ChatMessage[];
  client: SummaryClient;
  /** The model's window, when known: the summariser's requests are sized to it (default: unknown). */
  window?: number | null;
  /** A summariser request was refused as too big and stated this limit. */
  onWindowLearned?: (tokens: number) => void;
  /** What the compacted context carries after the boundary, read fresh from the session's records (carried.ts). */
  carried?: () => Promise<CarriedInput>;
  /** What the summary should keep above all (\compact FOCUS, Compact now's focus line). */
  focus?: string;
  /** Compact up to here: the cut (compactor.ts upToCut) instead of the latest user turn. */
  upTo?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  onEvent?: (event: CompactionEvent) => void;
}

/**
 * Compacts now, whatever the budget says (`\compact`). A failed or rejected summary leaves
 * the context as it was and is reported in the outcome; only a user abort throws.
 */
export async function compactSession(opts: CompactSessionOptions): Promise<ForcedCompactionOutcome> {
  const { sessionId, store, budget, messages, onEvent } = opts;
  if ((opts.upTo ?? compactableCut(messages)) === null) {
    return { status: 'nothing_to_compact', messages, notice: NOTHING_TO_COMPACT_MESSAGE };
  }
  onEvent?.({ type: 'compaction', sessionId, phase: 'start', before_tokens: estimateTotal(messages) });
  try {
    const carried = opts.carried ? carriedMessage(await opts.carried(), Math.floor(budget.maxTokens * CARRIED_SHARE)) : null;
    const result = await compactContext({
      ...opts,
      carried: carried?.message ?? null,
      limits: {
        window: opts.window ?? null,
        onWindowLearned: opts.onWindowLearned,
        // A step's request happened whatever comes of the rest: it is charged as it ends.
        onStepCharged: (usage) => store.recordUsage(sessionId, 'compaction', usage),
      },
    });
    store.recordCompaction(sessionId, result);
    budget.reset(result.messages);
    const { before_tokens, after_tokens } = result.compaction;
    onEvent?.({ type: 'compaction', sessionId, phase: 'done', before_tokens, after_tokens });
    return { status: 'compacted', ...result, carriedDropped: carried && anythingDropped(carried.dropped) ? carried.dropped : null };
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    // A rejected summary was still a model call: the session pays for it.
    if (err instanceof CompactionRejectedError) store.recordUsage(sessionId, 'compaction', err.usage);
    const error = errorMessage(err);
    onEvent?.({ type: 'compaction', sessionId, phase: 'failed', error });
    return { status: 'failed', messages, error };
  }
}

/**
 * Called before every regular model request. Above the threshold it compacts; then, if the
 * context still exceeds the hard budget, it throws a LoomError and the caller must not send
 * the request. The session itself stays saved and resumable.
 */
export async function ensureContextFits(opts: CompactSessionOptions): Promise<CompactionOutcome> {
  const outcome: CompactionOutcome = opts.budget.overThreshold() ? await compactSession(opts) : { status: 'not_needed', messages: opts.messages };
  if (!opts.budget.fits()) throw hardStop(opts.budget, outcome);
  return outcome;
}

function hardStop(budget: ContextBudget, outcome: CompactionOutcome): LoomError {
  const why =
    outcome.status === 'failed'
      ? ` Compaction failed: ${outcome.error.replace(/\.?$/, '.')}`
      : outcome.status === 'nothing_to_compact'
        ? ' The current turn alone is too large to compact.'
        : '';
  return new LoomError(
    `The conversation (${budget.estimate()} tokens) does not fit --max-context-tokens ${budget.maxTokens} ` +
      `even after compaction; no request was sent.${why} Raise --max-context-tokens or start a new ` +
      'session; this session stays saved and can be resumed.',
    'context_too_large',
  );
}
