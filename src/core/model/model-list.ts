/**
 * The model picker and the connection test (docs/DESIGN.md#model-picker): `GET /models`
 * through the `openai` SDK, bounded in time, and every failure said in one sentence that
 * names the server and what is wrong (unreachable, the key refused, a timeout, the model
 * missing from the list).
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { ConnectionProblem, ConnectionReport } from '../../shared/types';
import { errorMessage, LoomError } from '../errors';
import { networkCode, serverMessage } from './classify-failure';
import { openaiFor } from './client';
import { cleanServerText, networkReason } from './model-error';
import { RequestGuard } from './request-guard';

/** How long listing may take: a settings dialog must not wait on a silent server. */
const MODEL_LIST_TIMEOUT_MS = 10_000;
/** Most model names kept from one list, and the longest name: the list is the server's, untrusted. */
const MAX_MODELS = 2_000;
const MAX_NAME = 200;
/** Names quoted in the "not on the server" sentence. */
const NAMES_SHOWN = 12;

export interface ModelServer {
  baseUrl: string;
  /** '' sends no key. */
  apiKey: string;
  timeoutMs?: number;
}

/** Why listing failed: `problem` says what kind of thing is wrong. */
class ConnectionError extends LoomError {
  constructor(
    message: string,
    readonly problem: ConnectionProblem,
  ) {
    super(message, `connection_${problem}`);
  }
}

/** The server's model names, sorted; a ConnectionError when it cannot say. */
export async function listModels(server: ModelServer): Promise<string[]> {
  const timeoutMs = server.timeoutMs ?? MODEL_LIST_TIMEOUT_MS;
  const guard = new RequestGuard(undefined, { totalMs: timeoutMs, idleMs: timeoutMs });
  try {
    const page = await openaiFor({ ...server, timeoutMs }).models.list({ signal: guard.signal, timeout: timeoutMs });
    return modelNames(page.data, server.baseUrl);
  } catch (err) {
    if (err instanceof ConnectionError) throw err;
    throw listFailure(err, server, guard.timedOut !== null ? timeoutMs : null);
  } finally {
    guard.dispose();
  }
}

/** Lists the models and checks that `model` is among them; never throws for the server's failures. */
export async function testConnection(server: ModelServer, model: string): Promise<ConnectionReport> {
  let models: string[];
  try {
    models = await listModels(server);
  } catch (err) {
    if (err instanceof ConnectionError) return { ok: false, problem: err.problem, message: err.message, models: [] };
    throw err;
  }
  const where = `the model server at ${server.baseUrl}`;
  if (!models.includes(model)) {
    const shown = models.slice(0, NAMES_SHOWN).join(', ');
    const more = models.length > NAMES_SHOWN ? ` and ${models.length - NAMES_SHOWN} more` : '';
    const has = models.length ? `It has ${shown}${more}.` : 'It lists no models at all.';
    return { ok: false, problem: 'missing_model', message: `Connected, but ${where} has no model "${model}". ${has}`, models };
  }
  return { ok: true, message: `Connected to ${where}: ${plural(models.length, 'model')}, "${model}" among them.`, models };
}

function modelNames(data: unknown, baseUrl: string): string[] {
  if (!Array.isArray(data)) throw notAnApi(baseUrl);
  const names = new Set<string>();
  for (const entry of data.slice(0, MAX_MODELS)) {
    const id: unknown = typeof entry === 'object' && entry !== null ? (entry as { id?: unknown }).id : undefined;
    // A name is shown and sent back as is: one clean line, or it is left out.
    if (typeof id === 'string' && id.length > 0 && id.length <= MAX_NAME && cleanServerText(id) === id) names.add(id);
  }
  return [...names].sort((a, b) => a.localeCompare(b));
}

function listFailure(err: unknown, server: ModelServer, timedOutAfterMs: number | null): ConnectionError {
  const { baseUrl } = server;
  if (timedOutAfterMs !== null || err instanceof APIConnectionTimeoutError) {
    const seconds = Math.max(1, Math.round((timedOutAfterMs ?? server.timeoutMs ?? MODEL_LIST_TIMEOUT_MS) / 1000));
    return new ConnectionError(`The model server at ${baseUrl} did not answer within ${seconds} s. Check that it is running and not overloaded.`, 'timeout');
  }
  if (err instanceof APIConnectionError) {
    return new ConnectionError(
      `Cannot reach the model server at ${baseUrl} (${networkReason(networkCode(err))}). Check the URL and that the server is running.`,
      'unreachable',
    );
  }
  if (err instanceof APIError && (err.status === 401 || err.status === 403)) {
    const key = server.apiKey ? 'Check the API key.' : 'It needs an API key; enter one.';
    return new ConnectionError(`The model server at ${baseUrl} refused the API key (HTTP ${err.status}). ${key}`, 'refused');
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    const detail = cleanServerText(serverMessage(err as APIError));
    return new ConnectionError(
      `The model server at ${baseUrl} answered HTTP ${err.status}${detail ? `: ${detail}` : ''}. Check the URL; type the model name if it lists none.`,
      'http',
    );
  }
  if (err instanceof SyntaxError) return notAnApi(baseUrl);
  return new ConnectionError(`Cannot reach the model server at ${baseUrl} (${errorMessage(err)}).`, 'unreachable');
}

function notAnApi(baseUrl: string): ConnectionError {
  return new ConnectionError(
    `The server at ${baseUrl} did not list models as an OpenAI-compatible API does. Check the URL: it usually ends in /v1.`,
    'bad_response',
  );
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
