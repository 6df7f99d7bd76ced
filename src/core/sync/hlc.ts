/**
 * The hybrid logical clock (docs/DESIGN.md#sync-through-a-hub): one safe integer,
 * wall milliseconds × 1000 + a counter, so stamps order like time yet never go backwards
 * or repeat on one device. Local changes are stamped by the outbox triggers
 * (store/sync-tables.ts) with the same rule as `nextStamp`.
 */

/** A stamp for a change made now, after `clock`. */
export function nextStamp(clock: number, nowMs = Date.now()): number {
  return Math.max(nowMs * 1000, clock + 1);
}
