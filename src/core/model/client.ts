/**
 * The one way the engine talks to a model: streamed chat completions against any
 * OpenAI-compatible server, through the `openai` SDK with its own retries switched off so
 * that the policy here (which failures, how often, never after text reached the user) is
 * the only one.
 */
import OpenAI from 'openai';
import type { AssistantMessage, ChatMessage } from '../../shared/types';
import { type AttemptFailure, classifyFailure } from './classify-failure';
import { aborted, badResponse, ModelError } from './model-error';
import type { PriceTable } from './pricing';
import { ReplyAssembler } from './reply-assembler';
import { RequestGuard, type RequestLimits } from './request-guard';
import { DEFAULT_RETRY_TIMING, retryDelayMs, type RetryTiming, waitUnlessAborted } from './retry';
import { resolveUsage, type ReplyUsage } from './usage-estimate';

export interface ModelSettings {
  baseUrl: string;
  apiKey: string;
  model: string;
  /** How long one request may take in all, streaming included (--llm-timeout). */
  timeoutMs: number;
  /** How long the server may stay silent, before answering or between chunks (default: timeoutMs). */
  idleTimeoutMs?: number;
  /** Retries after the first attempt (default 3). */
  maxRetries?: number;
  /** First backoff step in ms (default 500); doubles per retry. */
  retryBaseMs?: number;
  /** Upper bound for one wait, a server's Retry-After included (default 30 s). */
  retryMaxDelayMs?: number;
  /** What calls cost, per model (default DEFAULT_PRICES; unlisted models cost nothing). */
  prices?: PriceTable;
}

export interface ToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: object };
}

export interface RetryNotice {
  /** 1 for the first retry. */
  attempt: number;
  /** How many retries this request may make in all. */
  maxRetries: number;
  delayMs: number;
  /** Why the previous attempt failed. */
  error: ModelError;
}

export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ToolSpec[];
  temperature?: number;
  maxTokens?: number;
  /** Overrides settings.timeoutMs (the whole request's bound) for this request. */
  timeoutMs?: number;
  /** Cancels this request only. */
  signal?: AbortSignal;
  /** Each piece of reply text as it arrives. */
  onText?: (delta: string) => void;
  /** Called before each retry, e.g. to tell the user the server is busy. */
  onRetry?: (notice: RetryNotice) => void;
}

/** How long the answered attempt took: to its first token, and from that token to the end. */
export interface ReplyTiming {
  /** From sending the request to the first reply text or tool-call data; null when the reply had none. */
  latencyMs: number | null;
  /** From the first token to the end of the reply. */
  generationMs: number;
}

export interface ChatResult {
  message: AssistantMessage;
  finishReason: string | null;
  usage: ReplyUsage;
  timing: ReplyTiming;
}

const DEFAULT_MAX_RETRIES = 3;

type Attempt = { ok: true; result: ChatResult } | ({ ok: false; emitted: boolean } & AttemptFailure);

export class ModelClient {
  private readonly openai: OpenAI;
  private readonly retryTiming: RetryTiming;

  constructor(readonly settings: ModelSettings) {
    this.openai = openaiFor(settings);
    this.retryTiming = {
      baseMs: settings.retryBaseMs ?? DEFAULT_RETRY_TIMING.baseMs,
      maxDelayMs: settings.retryMaxDelayMs ?? DEFAULT_RETRY_TIMING.maxDelayMs,
    };
  }

  async chat(req: ChatRequest): Promise<ChatResult> {
    const maxRetries = this.settings.maxRetries ?? DEFAULT_MAX_RETRIES;
    for (let retry = 0; ; retry++) {
      if (req.signal?.aborted) throw aborted();
      const attempt = await this.attempt(req);
      if (attempt.ok) return attempt.result;
      // Once text reached the user a retry would print it twice: report instead.
      if (!attempt.retryable || attempt.emitted || retry >= maxRetries) throw attempt.error;
      const delayMs = retryDelayMs(retry, this.retryTiming, attempt.retryAfterMs);
      req.onRetry?.({ attempt: retry + 1, maxRetries, delayMs, error: attempt.error });
      if (!(await waitUnlessAborted(delayMs, req.signal))) throw aborted();
    }
  }

  private async attempt(req: ChatRequest): Promise<Attempt> {
    const limits = this.limitsFor(req);
    const guard = new RequestGuard(req.signal, limits);
    const reply = new ReplyAssembler();
    const startedAt = performance.now();
    let firstTokenAt: number | null = null;
    let answering = false;
    let emitted = false;
    const noteFirstToken = () => {
      if (firstTokenAt === null && reply.started) firstTokenAt = performance.now();
    };
    const emit = (text: string) => {
      noteFirstToken();
      if (!text) return;
      emitted = true;
      try {
        req.onText?.(text);
      } catch (err) {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- a marker caught below to tell the caller's own exceptions from the SDK's.
        throw new CallerError(err);
      }
    };
    try {
      const { data: stream, response } = await this.openai.chat.completions
        .create(this.requestBody(req), { signal: guard.signal, timeout: limits.totalMs })
        .withResponse();
      answering = true;
      guard.touch();
      if (isJsonResponse(response)) {
        emit(reply.add(await response.json()));
      } else {
        for await (const chunk of stream) {
          guard.touch();
          emit(reply.add(chunk));
          // Over the size cap: stop reading, so the rest is never even downloaded.
          if (reply.overflowed) break;
        }
      }
      emit(reply.cutNotice());
      // The SDK ends a stream quietly when its signal fires; that is still a failure.
      if (guard.signal.aborted) return { ok: false, emitted, ...classifyFailure(undefined, this.context(guard, limits, answering)) };
      if (!reply.recognised) return { ok: false, emitted, error: badResponse(this.settings.baseUrl), retryable: false };
      const message = reply.message();
      const endedAt = performance.now();
      const timing = { latencyMs: firstTokenAt === null ? null : firstTokenAt - startedAt, generationMs: endedAt - (firstTokenAt ?? endedAt) };
      return {
        ok: true,
        result: { message, finishReason: reply.finishReason, usage: resolveUsage(reply.usage, req, message), timing },
      };
    } catch (err) {
      if (err instanceof CallerError) throw err.cause;
      return { ok: false, emitted, ...classifyFailure(err, this.context(guard, limits, answering)) };
    } finally {
      guard.dispose();
    }
  }

  private context(guard: RequestGuard, limits: RequestLimits, answering: boolean) {
    return { baseUrl: this.settings.baseUrl, model: this.settings.model, limits, guard, answering };
  }

  /** Without an idle bound of its own, silence is bounded only by the whole request's. */
  private limitsFor(req: ChatRequest): RequestLimits {
    const totalMs = req.timeoutMs ?? this.settings.timeoutMs;
    return { totalMs, idleMs: this.settings.idleTimeoutMs ?? totalMs };
  }

  private requestBody(req: ChatRequest): OpenAI.Chat.ChatCompletionCreateParamsStreaming {
    const body: OpenAI.Chat.ChatCompletionCreateParamsStreaming = {
      model: this.settings.model,
      messages: req.messages.map(wireMessage),
      stream: true,
      stream_options: { include_usage: true },
    };
    if (req.tools?.length) body.tools = req.tools as OpenAI.Chat.ChatCompletionTool[];
    if (req.temperature !== undefined) body.temperature = req.temperature;
    if (req.maxTokens !== undefined) body.max_tokens = req.maxTokens;
    return body;
  }
}

/** The SDK's client for one server, with only what Loom means to send: the key (if any), nothing from the environment. */
export function openaiFor(server: { baseUrl: string; apiKey: string; timeoutMs: number }): OpenAI {
  return new OpenAI({
    baseURL: server.baseUrl,
    // Local servers need no key, but the SDK refuses to start without one.
    apiKey: server.apiKey || 'no-key',
    // ...and without a key nothing is sent: no placeholder `Authorization` header at all.
    defaultHeaders: server.apiKey ? undefined : { Authorization: null },
    // Never forward OPENAI_ORG_ID / OPENAI_PROJECT_ID from the environment to any server.
    organization: null,
    project: null,
    maxRetries: 0,
    timeout: server.timeoutMs,
    // The SDK would print unparsable chunks to the console; the error says it instead.
    logLevel: 'off',
  });
}

/** An exception from the caller's onText: passed through untouched, never retried. */
class CallerError {
  constructor(readonly cause: unknown) {}
}

/** Some servers ignore `stream: true` and send one whole completion as JSON. */
function isJsonResponse(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').includes('application/json');
}

/** The chat format only: Loom's own mark on a stopped reply is not for the server. */
function wireMessage(message: ChatMessage): ChatMessage {
  if (message.role !== 'assistant' || !message.stopped) return message;
  const { stopped: _mark, ...wire } = message;
  return wire;
}
