/** Estimated tokens in the working context against the budget; amber from the compaction threshold on. */
import { compactionsSummary, type CompactionCounts } from '../lib/compactions';
import { kiloTokens } from '../lib/format';

const COMPACTION_THRESHOLD = 0.8;

export function ContextMeter({ tokens, max, compactions }: { tokens: number; max: number; compactions: CompactionCounts }) {
  const ratio = max > 0 ? Math.min(1, tokens / max) : 0;
  const level = ratio >= 1 ? 'full' : ratio >= COMPACTION_THRESHOLD ? 'high' : 'ok';
  const text = `${kiloTokens(tokens)} / ${kiloTokens(max)} tokens`;
  return (
    <div
      className={`meter meter-${level}`}
      role="meter"
      aria-label="Context"
      aria-valuemin={0}
      aria-valuemax={max}
      aria-valuenow={Math.min(tokens, max)}
      aria-valuetext={`${tokens} of ${max} tokens (estimated)`}
      title={`Context: about ${tokens} of ${max} tokens; compacts automatically at ${Math.round(COMPACTION_THRESHOLD * 100)}%; ${compactionsSummary(compactions)} so far`}
    >
      <progress max={1} value={ratio} aria-hidden="true" />
      <span className="meter-text">{text}</span>
    </div>
  );
}
