import { CALL_KINDS, type CallKind, type CallUsage, type SessionUsage, type UsageTotals } from '../../shared/types';
import { costUsd, type PriceTable } from './pricing';

/**
 * Running token and cost totals of this process's model calls, per call kind. The agent
 * checks costUsd() against --max-cost-usd; the store keeps the per-session record.
 */
export class UsageMeter {
  private readonly byKind = Object.fromEntries(CALL_KINDS.map((kind) => [kind, emptyTotals()])) as Record<CallKind, UsageTotals>;

  constructor(
    private readonly model: string,
    private readonly prices?: PriceTable,
  ) {}

  /** Counts one call; returns its usage with cost, ready for SessionStore.recordUsage. */
  add(kind: CallKind, usage: { prompt_tokens: number; completion_tokens: number }): CallUsage {
    const call: CallUsage = {
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      cost_usd: costUsd(this.model, usage, this.prices),
    };
    const totals = this.byKind[kind];
    totals.calls += 1;
    totals.prompt_tokens += call.prompt_tokens;
    totals.completion_tokens += call.completion_tokens;
    totals.cost_usd += call.cost_usd;
    return call;
  }

  totals(): SessionUsage {
    const sum = emptyTotals();
    const by_kind = {} as Record<CallKind, UsageTotals>;
    for (const kind of CALL_KINDS) {
      const t = this.byKind[kind];
      by_kind[kind] = { ...t };
      sum.calls += t.calls;
      sum.prompt_tokens += t.prompt_tokens;
      sum.completion_tokens += t.completion_tokens;
      sum.cost_usd += t.cost_usd;
    }
    return { ...sum, by_kind };
  }

  costUsd(): number {
    return CALL_KINDS.reduce((sum, kind) => sum + this.byKind[kind].cost_usd, 0);
  }
}

function emptyTotals(): UsageTotals {
  return { calls: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 };
}
