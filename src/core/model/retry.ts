/**
 * When and how long to wait before retrying a failed model request.
 */
export interface RetryTiming {
  /** First backoff step; doubles on every further attempt. */
  baseMs: number;
  /** Upper bound for any single wait, Retry-After included. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_TIMING: RetryTiming = { baseMs: 500, maxDelayMs: 30_000 };

/** Statuses worth another try: timeouts, conflicts, rate limits and server failures. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Network failures that a restarted or briefly overloaded server recovers from. */
const RETRYABLE_NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

export function isRetryableNetworkCode(code: string | undefined): boolean {
  return code !== undefined && RETRYABLE_NETWORK_CODES.has(code);
}

/**
 * Retry-After as milliseconds: `retry-after-ms` (OpenAI), then `retry-after` in seconds
 * or as an HTTP date. Undefined when absent or unreadable.
 */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers?.get('retry-after');
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Exponential backoff with jitter (half fixed, half random, so parallel clients spread out);
 * a server's Retry-After wins when it gives one. Always within maxDelayMs.
 */
export function retryDelayMs(attempt: number, timing: RetryTiming, serverAfterMs?: number): number {
  if (serverAfterMs !== undefined) return Math.min(serverAfterMs, timing.maxDelayMs);
  const step = timing.baseMs * 2 ** attempt;
  return Math.min(Math.round(step / 2 + (Math.random() * step) / 2), timing.maxDelayMs);
}

/** Wait, unless the signal fires first (then resolve false). */
export function waitUnlessAborted(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
