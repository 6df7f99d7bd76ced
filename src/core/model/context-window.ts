/**
 * A model's context window: how many tokens one request to it may hold
 * (docs/DESIGN.md#the-models-window). Servers say it in different places, or only when they
 * refuse a request; this module reads each of those, and nothing here touches the network
 * or the store.
 */

/** Where a window figure came from, most trusted first when several are known. */
export type WindowSource = 'server' | 'setting' | 'refusal';

export interface ModelWindow {
  tokens: number;
  source: WindowSource;
}

/** Smaller than any chat model's window, larger than any real one: a figure outside is noise. */
const MIN_WINDOW = 256;
const MAX_WINDOW = 100_000_000;

export function plausibleWindow(value: unknown): number | null {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= MIN_WINDOW && n <= MAX_WINDOW ? n : null;
}

/**
 * The fields OpenAI-compatible servers put beside a model's id in `GET /models`:
 * OpenRouter and Together `context_length`, vLLM `max_model_len`, LM Studio
 * `max_context_length`, others `context_window`.
 */
const MODEL_ENTRY_FIELDS = ['context_length', 'max_model_len', 'max_context_length', 'context_window'] as const;

export function windowFromModelEntry(entry: unknown): number | null {
  if (typeof entry !== 'object' || entry === null) return null;
  const record = entry as Record<string, unknown>;
  for (const field of MODEL_ENTRY_FIELDS) {
    const tokens = plausibleWindow(record[field]);
    if (tokens !== null) return tokens;
  }
  return null;
}

/**
 * Ollama's `POST /api/show`: the `num_ctx` the model runs with when its parameters set one
 * (what the server really allows), else the architecture's trained length.
 */
export function windowFromOllamaShow(body: unknown): number | null {
  if (typeof body !== 'object' || body === null) return null;
  const { parameters, model_info: info } = body as { parameters?: unknown; model_info?: unknown };
  const numCtx = typeof parameters === 'string' ? /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(parameters)?.[1] : undefined;
  if (numCtx) return plausibleWindow(numCtx);
  if (typeof info !== 'object' || info === null) return null;
  for (const [key, value] of Object.entries(info)) {
    if (key.endsWith('.context_length')) return plausibleWindow(value);
  }
  return null;
}

/**
 * How servers word a refusal for size, each with the limit it states: OpenAI ("This
 * model's maximum context length is 8192 tokens"), vLLM (the same words), llama.cpp
 * ("exceeds the available context size (8192 tokens)"), Anthropic-style ("prompt is too
 * long: 9000 tokens > 8192 maximum"), LM Studio and others ("context length of 8192").
 */
const STATED_LIMITS: readonly RegExp[] = [
  /maximum context length is (\d+)/i,
  /available context size \((\d+) tokens?\)/i,
  /tokens? > (\d+) maximum/i,
  /context (?:length|window|size) (?:of|is) (\d+)/i,
];
const OVERFLOW_WORDS =
  /context[_ ](?:length|window)[_ ]exceeded|exceeds? (?:the )?(?:available |maximum )?context|maximum context length|prompt is too long|too many tokens|context size/i;

/** A refusal because the request was too big for the model: the limit it states, or null when it names none. */
export interface ContextOverflow {
  statedLimit: number | null;
}

/** Whether an HTTP error says the request did not fit the model, and what limit it names. */
export function contextOverflowOf(status: number, code: unknown, message: string): ContextOverflow | null {
  if (status !== 400 && status !== 413 && status !== 422) return null;
  if (code !== 'context_length_exceeded' && !OVERFLOW_WORDS.test(message)) return null;
  for (const pattern of STATED_LIMITS) {
    const tokens = plausibleWindow(pattern.exec(message)?.[1]);
    if (tokens !== null) return { statedLimit: tokens };
  }
  return { statedLimit: null };
}

/**
 * What a refused request of `sentTokens` (Loom's estimate) teaches: the limit it stated
 * when the request was over it, else a little less than was sent. A request refused while
 * under the stated limit by the estimate means the estimate runs low for this text (the
 * server counts its own tokens), so only a figure in the estimate's own units helps.
 */
export function windowAfterRefusal(overflow: ContextOverflow, sentTokens: number): number {
  const { statedLimit } = overflow;
  if (statedLimit !== null && statedLimit < sentTokens) return statedLimit;
  return Math.max(MIN_WINDOW, Math.floor(sentTokens * 0.8));
}

/**
 * Room kept for the reply and for the estimate's error: a quarter of a small window, 4,096
 * tokens of a large one.
 */
function replyReserve(window: number): number {
  return Math.min(4096, Math.ceil(window / 4));
}

/** The working context's budget: the user's, lowered to what the model can take with room to answer. */
export function effectiveBudget(maxContextTokens: number, window: ModelWindow | null): number {
  if (!window) return maxContextTokens;
  return Math.max(MIN_WINDOW / 2, Math.min(maxContextTokens, window.tokens - replyReserve(window.tokens)));
}

/**
 * The window in force when several are known: the server's own figure, else the user's
 * setting, else what a refusal taught. A refusal's figure caps whichever is chosen: the
 * server refused more than that, whatever it or the user said.
 */
export function resolveWindow(known: Partial<Record<WindowSource, number>>): ModelWindow | null {
  const chosen: ModelWindow | null =
    known.server !== undefined ? { tokens: known.server, source: 'server' } : known.setting !== undefined ? { tokens: known.setting, source: 'setting' } : null;
  if (known.refusal !== undefined && (!chosen || known.refusal < chosen.tokens)) return { tokens: known.refusal, source: 'refusal' };
  return chosen;
}
