/**
 * Asks the model server for a model's window (docs/DESIGN.md#the-models-window): its
 * `GET /models` entry, and for Ollama, whose OpenAI-compatible list carries no window,
 * `POST /api/show`. Bounded in time, and never an error: a server that cannot say is
 * simply not asked again for a while (window-store.ts).
 */
import { openaiFor } from './client';
import { windowFromModelEntry, windowFromOllamaShow } from './context-window';
import type { ModelServer } from './model-list';

/** Before a turn's first request: short, since the turn waits for it. */
export const SERVER_WINDOW_TIMEOUT_MS = 3_000;

export async function askServerWindow(server: ModelServer, model: string): Promise<number | null> {
  const timeoutMs = server.timeoutMs ?? SERVER_WINDOW_TIMEOUT_MS;
  try {
    const page = await openaiFor({ ...server, timeoutMs }).models.list({ signal: AbortSignal.timeout(timeoutMs), timeout: timeoutMs });
    const entry: unknown = page.data.find((m) => m.id === model);
    const listed = windowFromModelEntry(entry);
    if (listed !== null || !isOllamaEntry(entry)) return listed;
    return await askOllama(server, model, timeoutMs);
  } catch {
    return null;
  }
}

/** Ollama lists its models as owned by "library" (or the user who pushed them); only it has /api/show. */
function isOllamaEntry(entry: unknown): boolean {
  const owner = typeof entry === 'object' && entry !== null ? (entry as { owned_by?: unknown }).owned_by : undefined;
  return owner === 'library' || owner === 'ollama';
}

async function askOllama(server: ModelServer, model: string, timeoutMs: number): Promise<number | null> {
  const root = server.baseUrl.replace(/\/v1\/?$/, '');
  const response = await fetch(`${root}/api/show`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(server.apiKey ? { authorization: `Bearer ${server.apiKey}` } : {}) },
    body: JSON.stringify({ model }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.ok) return null;
  // The model's details are large (its whole template and licence); the window is all we read.
  return windowFromOllamaShow(await response.json());
}
