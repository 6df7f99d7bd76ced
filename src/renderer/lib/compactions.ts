/**
 * What the UI says about a session's compactions (docs/DESIGN.md#seeing-and-undoing-a-compaction):
 * the range one summarised, the totals Info and the context meter show, what a
 * "Compact now" request carries, and how a pin is named.
 */
import type { CompactionDetail, Pin } from '../../shared/types';
import { formatCount, plural } from './format';

/** The most summarised messages the kept-and-dropped view lists (the transcript holds them all). */
export const SUMMARISED_SHOWN = 100;

/**
 * The transcript range a compaction summarised, [from, to) by index, as people count
 * messages (from 1, the way the engine's "Message N" errors do); null for older records.
 * The record's range starts where the working context did: for a first compaction that is
 * message 0, the system prompt, which leads every request and is never summarised.
 */
export function summarisedRange(detail: Pick<CompactionDetail, 'summarised_from' | 'kept_from'>): { first: number; last: number; count: number } | null {
  const { summarised_from: start, kept_from: to } = detail;
  if (start === null || to === null) return null;
  const from = Math.max(start, 1);
  if (to <= from) return null;
  return { first: from + 1, last: to, count: to - from };
}

export function rangeLabel(detail: Pick<CompactionDetail, 'summarised_from' | 'kept_from'>): string {
  const range = summarisedRange(detail);
  if (!range) return 'Not recorded (an older compaction)';
  return range.count === 1 ? `message ${formatCount(range.first)}` : `messages ${formatCount(range.first)} to ${formatCount(range.last)}`;
}

export interface CompactionCounts {
  compactions: number;
  /** Summariser requests, over every compaction that recorded them. */
  steps: number;
  undone: number;
}

export function compactionCounts(details: readonly Pick<CompactionDetail, 'steps' | 'undone_at'>[]): CompactionCounts {
  return {
    compactions: details.length,
    steps: details.reduce((sum, d) => sum + (d.steps ?? 0), 0),
    undone: details.filter((d) => d.undone_at !== null).length,
  };
}

/** "2 compactions (1 undone)", for the context meter's title. */
export function compactionsSummary(counts: Pick<CompactionCounts, 'compactions' | 'undone'>): string {
  const total = plural(counts.compactions, 'compaction');
  return counts.undone > 0 ? `${total} (${formatCount(counts.undone)} undone)` : total;
}

/** The options of a chat.compact request: a blank focus is no focus (the plain request). */
export function compactOptions(focus: string, upTo?: number): { focus?: string; upTo?: number } {
  const trimmed = focus.trim();
  return { ...(trimmed ? { focus: trimmed } : {}), ...(upTo === undefined ? {} : { upTo }) };
}

/** What a pin is, as Info lists it: "Message 3, Loom", "Message 2, you", "Note". */
export function pinLabel(pin: Pick<Pin, 'seq' | 'role'>): string {
  if (pin.seq === null) return 'Note';
  const who = pin.role === 'user' ? 'you' : pin.role === 'assistant' ? 'Loom' : (pin.role ?? 'message');
  return `Message ${formatCount(pin.seq + 1)}, ${who}`;
}
