import { describe, expect, it } from 'vitest';
import { isRetryableStatus, retryAfterMs, retryDelayMs } from '../../src/core/model/retry';

describe('retry policy', () => {
  it('retries timeouts, conflicts, rate limits and server errors only', () => {
    expect([408, 409, 429, 500, 502, 503].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 422].some(isRetryableStatus)).toBe(false);
  });

  it('reads Retry-After as ms, seconds or an HTTP date', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250' }))).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2000);
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': 'Tue, 01 Jan 2030 00:00:05 GMT' }), now)).toBe(5000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(new Headers())).toBeUndefined();
  });

  it('backs off exponentially with jitter, within the cap, and lets the server decide when it says', () => {
    const timing = { baseMs: 100, maxDelayMs: 1000 };
    for (let i = 0; i < 50; i++) {
      expect(retryDelayMs(0, timing)).toBeGreaterThanOrEqual(50);
      expect(retryDelayMs(0, timing)).toBeLessThanOrEqual(100);
      expect(retryDelayMs(2, timing)).toBeGreaterThanOrEqual(200);
      expect(retryDelayMs(2, timing)).toBeLessThanOrEqual(400);
      expect(retryDelayMs(10, timing)).toBeLessThanOrEqual(1000);
    }
    expect(retryDelayMs(0, timing, 700)).toBe(700);
    expect(retryDelayMs(0, timing, 60_000)).toBe(1000);
  });
});
