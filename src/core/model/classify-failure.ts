/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return --
   this file reads errors of unknown shape (the SDK's APIError<any>, fetch's cause chain) and checks each field's type before use. */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { contextOverflowOf } from './context-window';
import { aborted, badResponse, cutOff, httpFailure, ModelError, streamError, timedOut, unreachable } from './model-error';
import type { RequestGuard, RequestLimits } from './request-guard';
import { isRetryableNetworkCode, isRetryableStatus, retryAfterMs } from './retry';

/** A failed attempt: the error to report, and whether another attempt may succeed. */
export interface AttemptFailure {
  error: ModelError;
  retryable: boolean;
  /** What the server asked us to wait, if it said. */
  retryAfterMs?: number;
}

export interface FailureContext {
  baseUrl: string;
  model: string;
  limits: RequestLimits;
  guard: RequestGuard;
  /** The server had started answering (headers received). */
  answering: boolean;
}

/** Turns whatever the SDK, fetch or the stream threw into one ModelError. */
export function classifyFailure(err: unknown, ctx: FailureContext): AttemptFailure {
  const { baseUrl, guard } = ctx;
  // The guard knows why it fired; the SDK reports either reason as a user abort.
  if (guard.cancelled) return final(aborted());
  if (guard.timedOut === 'idle') return final(timedOut(baseUrl, 'idle', ctx.limits.idleMs));
  // The SDK's own timeout is set to the total: it fires only before the headers arrive.
  if (guard.timedOut === 'total' || err instanceof APIConnectionTimeoutError) return final(timedOut(baseUrl, 'total', ctx.limits.totalMs));
  if (err instanceof APIUserAbortError) return final(aborted());
  if (err instanceof APIConnectionError) return unreachableFailure(baseUrl, networkCode(err));
  if (err instanceof APIError && typeof err.status === 'number') {
    const message = serverMessage(err);
    const overflow = contextOverflowOf(err.status, err.code ?? err.error?.code, message) ?? undefined;
    return {
      error: httpFailure(baseUrl, ctx.model, err.status, message, overflow),
      retryable: isRetryableStatus(err.status),
      retryAfterMs: retryAfterMs(err.headers),
    };
  }
  if (err instanceof APIError) return final(streamError(baseUrl, serverMessage(err)));
  if (err instanceof SyntaxError) return final(badResponse(baseUrl));
  if (ctx.answering) return { error: cutOff(baseUrl), retryable: true };
  return unreachableFailure(baseUrl, networkCode(err));
}

/** No answer from the server: worth another try only when the network error may pass. */
function unreachableFailure(baseUrl: string, code: string | undefined): AttemptFailure {
  return { error: unreachable(baseUrl, code), retryable: isRetryableNetworkCode(code) };
}

function final(error: ModelError): AttemptFailure {
  return { error, retryable: false };
}

/** The first errno-style code down the cause chain (fetch wraps the socket error). */
export function networkCode(err: unknown): string | undefined {
  for (let e: any = err, depth = 0; e && depth < 5; e = e.cause, depth++) {
    if (typeof e.code === 'string') return e.code;
    if (typeof e.message === 'string' && /socket hang up/i.test(e.message)) return 'ECONNRESET';
    // fetch blocks some ports outright (9, 25, 6000…): it says so only in words.
    if (e.message === 'bad port') return 'BAD_PORT';
  }
  return undefined;
}

/** The server's own words: the JSON error's message, else the raw body the SDK kept. */
export function serverMessage(err: APIError): string {
  const body: any = err.error;
  if (typeof body?.message === 'string') return body.message;
  if (typeof body === 'string') return body;
  return err.message.replace(/^\d{3}\s*/, '').replace(/^status code \(no body\)$/i, '');
}
