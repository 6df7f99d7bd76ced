import type { ModelAdvice, ModelFailure } from '../../shared/model-failure';
import { LoomError } from '../errors';
import { redactSecrets } from '../security/secrets';
import type { ContextOverflow } from './context-window';
import type { TimeoutKind } from './request-guard';

export type ModelErrorKind = 'unreachable' | 'timeout' | 'aborted' | 'http' | 'bad_response';

/**
 * A failed model request, with one line for the user that names the server and what to do
 * (the message: the problem, then the advice in the command's terms, its flags), and the
 * same apart (`problem`, `advice`) for a front end that words the advice its own way.
 */
export class ModelError extends LoomError {
  constructor(
    /** What went wrong, one sentence without advice. */
    readonly problem: string,
    /** What the user can do, as a code; null when there is nothing to advise (a stop, the server's own words mid-reply). */
    readonly advice: ModelAdvice | null,
    /** The advice in the command's words. */
    commandAdvice: string,
    readonly kind: ModelErrorKind,
    /** The HTTP status, for kind 'http'. */
    readonly status?: number,
    /** Set when the server refused the request as too big for the model's window. */
    readonly overflow?: ContextOverflow,
  ) {
    super(commandAdvice ? `${problem} ${commandAdvice}` : problem, `model_${kind}`);
    this.name = 'ModelError';
  }

  /** The problem and its advice, for a front end; null when there is no advice to word. */
  get failure(): ModelFailure | null {
    return this.advice ? { problem: this.problem, advice: this.advice } : null;
  }
}

const MAX_SERVER_TEXT = 300;

/**
 * Text the server chose to send is untrusted: no control characters (no terminal escapes),
 * one line, bounded, no secrets echoed back.
 */
export function cleanServerText(text: string): string {
  const oneLine = text
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const capped = oneLine.length > MAX_SERVER_TEXT ? `${oneLine.slice(0, MAX_SERVER_TEXT)}…` : oneLine;
  return redactSecrets(capped);
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed',
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  BAD_PORT: 'fetch refuses that port as unsafe; use another one',
};

/** A network error code in words: "connection refused". */
export function networkReason(code: string | undefined): string {
  return (code && NETWORK_REASONS[code]) ?? (code ? `network error ${code}` : 'network error');
}

export function unreachable(baseUrl: string, code: string | undefined): ModelError {
  const reason = networkReason(code);
  return new ModelError(
    `Cannot reach the model server at ${baseUrl} (${reason}).`,
    'start_server',
    'Start it (e.g. `ollama serve`) or pass --base-url.',
    'unreachable',
  );
}

/** `total`: the request took --llm-timeout in all; `idle`: the server was silent for --llm-idle-timeout. */
export function timedOut(baseUrl: string, kind: TimeoutKind, timeoutMs: number): ModelError {
  const seconds = Math.max(1, Math.round(timeoutMs / 1000));
  return kind === 'idle'
    ? new ModelError(
        `The model server at ${baseUrl} sent nothing for ${seconds} s.`,
        'idle_timeout',
        'Check that it is running and not overloaded, or raise --llm-idle-timeout.',
        'timeout',
      )
    : new ModelError(
        `The model server at ${baseUrl} did not finish its reply within ${seconds} s.`,
        'total_timeout',
        'Check that it is not overloaded, or raise --llm-timeout.',
        'timeout',
      );
}

export function aborted(): ModelError {
  return new ModelError('The model request was cancelled.', null, '', 'aborted');
}

export function httpFailure(baseUrl: string, model: string, status: number, serverMessage: string, overflow?: ContextOverflow): ModelError {
  const detail = serverMessage ? `: ${cleanServerText(serverMessage)}` : '';
  const answered = `The model server at ${baseUrl} answered HTTP ${status}${detail}`;
  const advice = httpAdvice(status);
  return new ModelError(`${answered.replace(/[.\s]+$/, '')}.`, advice, HTTP_COMMAND_ADVICE[advice](model), 'http', status, overflow);
}

type HttpAdvice = 'check_api_key' | 'check_model' | 'rate_limited' | 'server_failed' | 'check_request';

function httpAdvice(status: number): HttpAdvice {
  if (status === 401 || status === 403) return 'check_api_key';
  if (status === 404) return 'check_model';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server_failed';
  return 'check_request';
}

const HTTP_COMMAND_ADVICE: Record<HttpAdvice, (model: string) => string> = {
  check_api_key: () => 'Check --api-key.',
  check_model: (model) => `Check --model (is "${model}" available on that server?) and --base-url.`,
  rate_limited: () => 'The server is rate-limiting requests; wait a moment and try again.',
  server_failed: () => 'The server failed; try again, or check its logs.',
  check_request: () => 'Check --model, --base-url and the request settings.',
};

export function badResponse(baseUrl: string): ModelError {
  return new ModelError(
    `The model server at ${baseUrl} sent a reply that is not an OpenAI-compatible chat completion.`,
    'check_base_url',
    "Check --base-url: it should be the server's OpenAI-compatible API, usually ending in /v1.",
    'bad_response',
  );
}

export function cutOff(baseUrl: string): ModelError {
  return new ModelError(`The model server at ${baseUrl} cut the reply off midway (the connection closed).`, 'try_again', 'Try again.', 'bad_response');
}

export function streamError(baseUrl: string, serverMessage: string): ModelError {
  const detail = cleanServerText(serverMessage) || 'no details';
  return new ModelError(`The model server at ${baseUrl} reported an error mid-reply: ${detail}`, null, '', 'http');
}
