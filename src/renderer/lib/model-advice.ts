/**
 * A failed model request in the window's words: the engine sends the problem and an advice
 * code (shared/model-failure.ts); the `loom` command names its flags, the window its Settings.
 */
import type { ModelAdvice, ModelFailure, ModelRetry } from '../../shared/model-failure';

export interface WindowAdvice {
  text: string;
  /** The fix is in the settings dialog: the banner offers to open it. */
  inSettings: boolean;
}

const ADVICE: Record<ModelAdvice, WindowAdvice> = {
  start_server: { text: 'Start it, or check the server URL in Settings.', inSettings: true },
  idle_timeout: { text: 'Check that it is running and not overloaded.', inSettings: false },
  total_timeout: { text: 'Check that it is not overloaded.', inSettings: false },
  check_api_key: { text: 'Check the API key in Settings.', inSettings: true },
  check_model: { text: 'Check the model and the server URL in Settings: is the model available on that server?', inSettings: true },
  check_request: { text: 'Check the model and the server URL in Settings.', inSettings: true },
  check_base_url: { text: "Check the server URL in Settings: it should be the server's OpenAI-compatible API, usually ending in /v1.", inSettings: true },
  rate_limited: { text: 'The server is rate-limiting requests; wait a moment and try again.', inSettings: false },
  server_failed: { text: 'The server failed; try again, or check its logs.', inSettings: false },
  try_again: { text: 'Try again.', inSettings: false },
};

export function windowAdvice(failure: ModelFailure): WindowAdvice & { line: string } {
  const advice = ADVICE[failure.advice];
  return { ...advice, line: `${failure.problem} ${advice.text}` };
}

/** A request waiting for its next try, `secondsLeft` from now: which attempt failed, of how many, and when the next one comes. */
export function retryLine(retry: ModelRetry, secondsLeft: number): string {
  const next = secondsLeft > 0 ? `next try in ${secondsLeft} s` : 'trying again now';
  return `${retry.problem} Attempt ${retry.attempt} of ${retry.maxRetries + 1} failed; ${next}.`;
}
