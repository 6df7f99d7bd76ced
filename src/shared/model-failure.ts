/**
 * A failed model request as the engine reports it to a front end: what went wrong, and a
 * code for what the user should check. Each front end words the advice its own way: the
 * `loom` command names its flags (the ModelError's message), a window points at Settings
 * (src/renderer/lib/model-advice.ts).
 */

/** What the user can do about a failed model request. */
export type ModelAdvice =
  /** Nothing answers at the server's address: start it, or fix the address. */
  | 'start_server'
  /** The server was silent too long mid-reply. */
  | 'idle_timeout'
  /** The reply took longer than the request may take in all. */
  | 'total_timeout'
  /** The server refused the API key (401, 403). */
  | 'check_api_key'
  /** The server knows no such model (404). */
  | 'check_model'
  /** The server refused the request for another reason (another 4xx). */
  | 'check_request'
  /** The server answers, but not as an OpenAI-compatible chat completion. */
  | 'check_base_url'
  /** 429: wait and try again. */
  | 'rate_limited'
  /** 5xx: the server's own failure. */
  | 'server_failed'
  /** The connection dropped midway: another try may work. */
  | 'try_again';

/** A turn that failed on its model request: the problem in one sentence (no advice), and the advice's code. */
export interface ModelFailure {
  problem: string;
  advice: ModelAdvice;
}

/** A failed model request that will be tried again: the problem, which retry comes next and when. */
export interface ModelRetry {
  problem: string;
  /** 1 for the first retry (the second attempt). */
  attempt: number;
  /** How many retries the request may make in all. */
  maxRetries: number;
  delayMs: number;
}
