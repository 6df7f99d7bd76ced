/**
 * The most bytes one message from an MCP server may take, over stdio and over HTTP alike.
 * A message is held whole before it is parsed (a stdio line, an HTTP JSON body, an SSE
 * event), so without a cap one answer could grow Loom without bound (one over HTTP grew it
 * to 3.1 GB). The SDK's stdio read buffer stops at 10 MiB; HTTP is held to the same here.
 * Far above any real answer: the model sees at most 32 Ki characters of a result, and a
 * server's images are named, not shown. A server that sends more is disconnected, with
 * one line saying why.
 */
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

export const MAX_MESSAGE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

export class MessageTooLarge extends Error {
  constructor() {
    super(`it sent a message of over ${MAX_MESSAGE_BYTES / (1024 * 1024)} MiB, which Loom does not read`);
  }
}

/**
 * Counts the bytes of the message being received in a stream where each message ends with
 * one of `ends` (the blank line after an SSE event); with no `ends`, the whole stream is
 * one message (an HTTP JSON body).
 */
class MessageMeter {
  private current = 0;
  /** The last bytes of the previous chunk: an end split between two chunks is still seen. */
  private carry = Buffer.alloc(0);
  private readonly longestEnd: number;

  constructor(private readonly ends: readonly Buffer[] = []) {
    this.longestEnd = Math.max(0, ...ends.map((end) => end.length));
  }

  /** Adds a chunk; false once the message being received is over the cap. */
  fits(chunk: Uint8Array): boolean {
    const seen = Buffer.concat([this.carry, chunk]);
    const lastEnd = Math.max(-1, ...this.ends.map((end) => endOf(seen, end)));
    this.current = lastEnd >= 0 ? seen.length - lastEnd : this.current + chunk.length;
    this.carry = seen.subarray(Math.max(0, seen.length - (this.longestEnd - 1)));
    return this.current <= MAX_MESSAGE_BYTES;
  }
}

/** Where the last `end` in `bytes` ends, or -1. */
function endOf(bytes: Buffer, end: Buffer): number {
  const at = bytes.lastIndexOf(end);
  return at < 0 ? -1 : at + end.length;
}

/** An SSE event ends at a blank line, whichever line ending the server uses. */
const EVENT_END = ['\n\n', '\r\r', '\r\n\r\n'].map((end) => Buffer.from(end));

/**
 * A fetch for the Streamable HTTP transport whose answers are read through the cap: past
 * it the body fails and `tooLarge` is told (it closes the connection). The response is
 * the same in every other way (status, headers, URL), so the SDK's redirect rules hold.
 */
export function cappedFetch(tooLarge: (err: MessageTooLarge) => void): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (!response.body) return response;
    const eventStream = response.headers.get('content-type')?.toLowerCase().startsWith('text/event-stream') ?? false;
    const meter = new MessageMeter(eventStream ? EVENT_END : []);
    const capped = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (meter.fits(chunk)) return controller.enqueue(chunk);
          const err = new MessageTooLarge();
          // Erroring the stream cancels the body, which closes the socket: nothing more is read.
          controller.error(err);
          tooLarge(err);
        },
      }),
    );
    return withBody(response, new Response(capped, { headers: response.headers }));
  };
}

/** `response` with its body (and the ways to read it) taken from `limited`. */
function withBody(response: Response, limited: Response): Response {
  const fromLimited = new Set<PropertyKey>(['body', 'bodyUsed', 'json', 'text', 'arrayBuffer', 'blob', 'bytes', 'formData']);
  return new Proxy(response, {
    get(target, key) {
      const source = fromLimited.has(key) ? limited : target;
      const value: unknown = Reflect.get(source, key, source);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(source) : value;
    },
  });
}
