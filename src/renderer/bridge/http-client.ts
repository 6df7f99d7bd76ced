/**
 * The browser mode's side of the bridge: the same LoomBridge the preload gives Electron,
 * carried over HTTP (POST /api/<method>) and Server-Sent Events read with fetch, so the
 * access token travels as a header on every request, the event stream included.
 */
import type { BridgeEvent, BridgeResult, LoomBridge, MethodInput, MethodName, MethodOutput } from '../../shared/contract';
import { BridgeError } from './bridge-error';

const TOKEN_HEADER = 'x-loom-token';
const RECONNECT_MS = 1000;
/** Said when the server refuses the token: it can only mean a restart, which made a new one. */
const ACCESS_LOST = 'The Loom server restarted with a new access token: open the new URL it printed (pasting it into this tab is enough).';

export function createHttpBridge(token: string, base = ''): LoomBridge {
  const listeners = new Set<(event: BridgeEvent) => void>();
  const reconnectListeners = new Set<() => void>();
  const accessLostListeners = new Set<(reason: string) => void>();
  let streaming = false;
  let connections = 0;
  let accessLost = false;

  /** Retrying cannot help: every listener hears it once, and the stream stops. */
  function loseAccess(): BridgeError {
    if (!accessLost) {
      accessLost = true;
      accessLostListeners.forEach((listener) => listener(ACCESS_LOST));
    }
    return new BridgeError('unauthorized', ACCESS_LOST);
  }

  async function invoke<M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodOutput<M>> {
    let response: Response;
    try {
      response = await fetch(`${base}/api/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [TOKEN_HEADER]: token },
        body: JSON.stringify(input ?? {}),
      });
    } catch {
      throw new BridgeError('offline', 'Cannot reach the Loom server. Is `npm run web` still running?');
    }
    if (response.status === 401) throw loseAccess();
    const result = (await response.json().catch(() => null)) as BridgeResult<MethodOutput<M>> | null;
    if (!result) throw new BridgeError('internal', `The Loom server answered ${response.status} without a result.`);
    if (!result.ok) throw new BridgeError(result.error.code, result.error.message);
    return result.value;
  }

  /** Reads the SSE stream for as long as anyone listens, reconnecting after a drop. */
  async function stream(): Promise<void> {
    streaming = true;
    while (listeners.size > 0 && !accessLost) {
      try {
        const response = await fetch(`${base}/api/events`, { headers: { [TOKEN_HEADER]: token } });
        if (response.status === 401) {
          loseAccess();
          break;
        }
        if (!response.ok || !response.body) throw new Error(`events: ${response.status}`);
        // The server subscribes before it answers, so a catch-up from here misses nothing.
        if (connections++ > 0) reconnectListeners.forEach((listener) => listener());
        await readEvents(response.body, (event) => listeners.forEach((listener) => listener(event)));
      } catch {
        // The server went away (or is restarting): wait and try again.
      }
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
    }
    streaming = false;
  }

  return {
    invoke,
    onEvent(listener) {
      listeners.add(listener);
      if (!streaming) void stream();
      return () => listeners.delete(listener);
    },
    onReconnect(listener) {
      reconnectListeners.add(listener);
      return () => reconnectListeners.delete(listener);
    },
    onAccessLost(listener) {
      accessLostListeners.add(listener);
      return () => accessLostListeners.delete(listener);
    },
  };
}

async function readEvents(body: ReadableStream<Uint8Array>, emit: (event: BridgeEvent) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      if (data) emit(JSON.parse(data) as BridgeEvent);
    }
  }
}
