/**
 * A real OpenAI-compatible HTTP server on 127.0.0.1 whose replies are scripted by the test.
 * The code under test talks to it through the real `openai` client, so streaming, tool-call
 * assembly, retries, timeouts and aborts are exercised over real sockets.
 *
 *   const server = await startScriptedServer();
 *   server.enqueue({ text: 'Hello there' }, { toolCalls: [{ name: 'read_file', arguments: { path: 'a' } }], split: true });
 *   ... point the client at server.baseUrl ...
 *   expect(server.requests[0].body.model).toBe('gemma4');
 *   await server.close();
 *
 * Each POST /v1/chat/completions takes the next queued reply; with none queued it answers
 * 500 "scripted server: no reply queued" so a test that under-scripts fails loudly.
 * Only chat-completion requests are recorded in `requests`; GET /v1/models requests go to
 * `modelRequests`, and `models` says how that route answers (the list, an error status, a hang).
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { nth } from './elements';

export interface ScriptedToolCall {
  /** Defaults to call_<n>. */
  id?: string;
  name: string;
  /** A string is sent as is (so it may be invalid JSON); an object is JSON-encoded. */
  arguments: string | Record<string, unknown>;
}

export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export interface ScriptedReply {
  /** Assistant text; streamed as several chunks (one per word). */
  text?: string;
  /** Exact text pieces to stream instead of splitting `text`. */
  chunks?: string[];
  /** Send `content: null` explicitly (no text at all). */
  content?: null;
  toolCalls?: ScriptedToolCall[];
  /** Stream each tool call's arguments over several chunks, id/name only in the first. */
  split?: boolean;
  /** Reported usage; default is derived from the request and reply; null sends none. */
  usage?: ScriptedUsage | null;
  /** Default: 'tool_calls' when there are tool calls, else 'stop'. */
  finishReason?: string | null;
  /** Answer with this HTTP error status and a JSON error body instead of a completion. */
  status?: number;
  /** The error body's message (with `status`). */
  error?: string;
  /** Sent as the Retry-After header (seconds). */
  retryAfter?: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Accept the request and never answer; the socket is destroyed after this long. */
  hangMs?: number;
  /** Streaming only: send this many SSE events, then destroy the socket. */
  cutAfterChunks?: number;
  /** Streaming only: send this many SSE events, then stay silent for `hangMs` (or until close). */
  stallAfterChunks?: number;
  /** Streaming only: send this many SSE events, then wait for `resume` before the rest. */
  pauseAfterChunks?: number;
  /** Settles when a paused stream may go on (with `pauseAfterChunks`). */
  resume?: Promise<unknown>;
  /** Pause between SSE events (default: yield to the event loop only). */
  chunkDelayMs?: number;
  /** Streaming only: after the first event, send one text chunk every this many ms, forever (until the client goes). */
  trickleEveryMs?: number;
  /** Answer a streaming request with one whole JSON completion, as some servers do. */
  ignoreStream?: boolean;
  /** 'body': a 200 whose body is not a completion; 'chunk': an SSE event that is not JSON. */
  malformed?: 'body' | 'chunk';
  /** Build the reply from the request when it arrives. */
  respond?: (body: any, request: ReceivedRequest) => ScriptedReply | Promise<ScriptedReply>;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body. */
  body: any;
  /** Date.now() when the request arrived. */
  at: number;
  /** For a streamed reply: bytes written so far, and whether the whole reply was sent. */
  streamed?: { bytes: number; completed: boolean };
}

/** How GET /v1/models answers: these ids (default gemma4, scripted-model), or an error status, or never. */
export interface ScriptedModels {
  ids: string[];
  /** Answer with this HTTP error status instead (401: the key was refused). */
  status?: number;
  /** Accept the request and answer only after this long (the socket is destroyed then). */
  hangMs?: number;
  /** Each listed model's window, sent as `context_length` beside its id (as OpenRouter and others do). */
  windows?: Record<string, number>;
  /** Answer as Ollama does: models owned by "library", and `POST /api/show` with this body (for any model). */
  ollamaShow?: Record<string, unknown>;
}

export interface ScriptedServer {
  /** e.g. http://127.0.0.1:40123/v1 */
  readonly baseUrl: string;
  readonly requests: ReceivedRequest[];
  /** GET /v1/models requests, in order. */
  readonly modelRequests: ReceivedRequest[];
  /** Change it to make the models route answer otherwise. */
  models: ScriptedModels;
  /**
   * The model's context window: a chat request whose messages count more tokens (by
   * `countRequestTokens`) is refused with OpenAI's own 400 body, as a real server does, and
   * takes no queued reply. Null (the default): no limit.
   */
  window: number | null;
  /** Requests refused for their size, in order. */
  readonly refused: ReceivedRequest[];
  enqueue(...replies: ScriptedReply[]): void;
  /** Replies still queued. */
  pending(): number;
  /** Resolves once at least `count` chat requests have arrived (rejects after timeoutMs). */
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

const DEFAULT_HANG_MS = 60_000;
const MODEL_IDS = ['gemma4', 'scripted-model'];

export async function startScriptedServer(): Promise<ScriptedServer> {
  const queue: ScriptedReply[] = [];
  const requests: ReceivedRequest[] = [];
  const modelRequests: ReceivedRequest[] = [];
  const refused: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const waiters = new Set<() => void>();

  /** A delay that close() can cancel, so a hanging reply never keeps the process alive. */
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) sendError(res, 500, `scripted server: ${String(err)}`);
      else res.destroy();
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    const raw = await readBody(req);
    if (req.method === 'GET' && path === '/v1/models') return answerModels(req, res);
    if (req.method === 'POST' && path === '/api/show' && scripted.models.ollamaShow) {
      modelRequests.push({ method: 'POST', path, headers: req.headers, body: JSON.parse(raw), at: Date.now() });
      return sendJson(res, 200, scripted.models.ollamaShow);
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return sendError(res, 404, `scripted server: no route ${req.method} ${path}`);
    }
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      return sendError(res, 400, 'scripted server: request body is not JSON');
    }
    const received: ReceivedRequest = { method: req.method, path, headers: req.headers, body, at: Date.now() };
    if (scripted.window !== null) {
      const tokens = countRequestTokens(body);
      if (tokens > scripted.window) {
        refused.push(received);
        return sendJson(res, 400, contextLengthExceeded(scripted.window, tokens));
      }
    }
    requests.push(received);
    for (const wake of [...waiters]) wake();

    let reply = queue.shift();
    if (!reply) return sendError(res, 500, 'scripted server: no reply queued');
    if (reply.respond) reply = await reply.respond(body, received);
    await answer(reply, received, res);
  }

  async function answerModels(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    modelRequests.push({ method: 'GET', path: '/v1/models', headers: req.headers, body: null, at: Date.now() });
    const { ids, status, hangMs } = scripted.models;
    if (hangMs !== undefined) {
      await sleep(hangMs);
      res.destroy();
      return;
    }
    if (status !== undefined) return sendError(res, status, `scripted models error ${status}`);
    const windows = scripted.models.windows ?? {};
    const owner = scripted.models.ollamaShow ? 'library' : 'scripted';
    const entry = (id: string) => ({ id, object: 'model', owned_by: owner, ...(windows[id] ? { context_length: windows[id] } : {}) });
    sendJson(res, 200, { object: 'list', data: ids.map(entry) });
  }

  async function answer(reply: ScriptedReply, received: ReceivedRequest, res: http.ServerResponse): Promise<void> {
    const { body } = received;
    if (reply.delayMs) await sleep(reply.delayMs);
    if (reply.hangMs !== undefined && reply.stallAfterChunks === undefined) {
      await sleep(reply.hangMs);
      res.destroy();
      return;
    }
    if (reply.status !== undefined && reply.status >= 400) {
      const headers: Record<string, string> = { ...reply.headers };
      if (reply.retryAfter !== undefined) headers['retry-after'] = String(reply.retryAfter);
      return sendError(res, reply.status, reply.error ?? `scripted error ${reply.status}`, headers);
    }
    if (reply.malformed === 'body') {
      res.writeHead(200, { 'content-type': 'application/json', ...reply.headers });
      res.end('<html><body>Welcome to nginx!</body></html>');
      return;
    }
    if (body.stream && !reply.ignoreStream) return streamReply(reply, received, res);
    sendJson(res, 200, completion(reply, body), reply.headers);
  }

  async function streamReply(reply: ScriptedReply, received: ReceivedRequest, res: http.ServerResponse): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
    const events = sseEvents(reply, received.body);
    const streamed: NonNullable<ReceivedRequest['streamed']> = { bytes: 0, completed: false };
    received.streamed = streamed;
    const send = async (event: string) => {
      const data = `data: ${event}\n\n`;
      await write(res, data);
      streamed.bytes += Buffer.byteLength(data);
    };
    if (reply.trickleEveryMs !== undefined) {
      await send(nth(events, 0));
      for (let i = 0; !res.destroyed; i++) {
        await sleep(reply.trickleEveryMs);
        await send(textChunk(received.body, `drip ${i} `));
      }
      return;
    }
    let sent = 0;
    for (const event of events) {
      if (res.destroyed) return;
      if (reply.cutAfterChunks !== undefined && sent >= reply.cutAfterChunks) {
        res.destroy();
        return;
      }
      if (reply.stallAfterChunks !== undefined && sent >= reply.stallAfterChunks) {
        await sleep(reply.hangMs ?? DEFAULT_HANG_MS);
        res.destroy();
        return;
      }
      if (reply.pauseAfterChunks !== undefined && sent === reply.pauseAfterChunks) await reply.resume;
      await send(event);
      sent++;
      if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
      else await new Promise((resolve) => setImmediate(resolve));
    }
    if (res.destroyed) return;
    res.end();
    streamed.completed = true;
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const { port } = server.address() as AddressInfo;

  const scripted: ScriptedServer = {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    modelRequests,
    models: { ids: [...MODEL_IDS] },
    window: null,
    refused,
    enqueue: (...replies) => void queue.push(...replies),
    pending: () => queue.length,
    waitForRequests(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (requests.length < count) return;
          cleanup();
          resolve(requests.slice());
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`scripted server: expected ${count} requests, got ${requests.length}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return scripted;
}

// --- reply builders ----------------------------------------------------------------------

/**
 * The server's own token count of a chat request: every text of every message (content
 * parts, tool-call names and arguments) at 3.5 characters a token, 4 more per message. Not
 * Loom's estimate (4 characters a token): a real server counts its own way, and a little
 * more than Loom guesses for prose.
 */
export function countRequestTokens(body: any): number {
  let tokens = 0;
  for (const message of body.messages ?? []) {
    tokens += 4;
    const texts: string[] = [];
    if (typeof message.content === 'string') texts.push(message.content);
    else if (Array.isArray(message.content)) for (const part of message.content) if (typeof part.text === 'string') texts.push(part.text);
    for (const call of message.tool_calls ?? []) texts.push(call.function?.name ?? '', call.function?.arguments ?? '');
    for (const text of texts) tokens += Math.ceil(text.length / 3.5);
  }
  return tokens;
}

/** OpenAI's error for a request over the model's window, word for word. */
function contextLengthExceeded(window: number, tokens: number) {
  return {
    error: {
      message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
  };
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function write(res: http.ServerResponse, data: string): Promise<void> {
  return new Promise((resolve) => {
    res.write(data, () => resolve());
  });
}

function sendJson(res: http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}

function sendError(res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error: { message, type: 'scripted_error', code: status } }, headers);
}

function textPieces(reply: ScriptedReply): string[] {
  if (reply.chunks) return reply.chunks;
  if (!reply.text) return [];
  return reply.text.match(/\s*\S+\s*/g) ?? [reply.text];
}

function toolCalls(reply: ScriptedReply) {
  return (reply.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_${i + 1}`,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
}

function finishReason(reply: ScriptedReply): string | null {
  if (reply.finishReason !== undefined) return reply.finishReason;
  return reply.toolCalls?.length ? 'tool_calls' : 'stop';
}

/** Plausible usage derived from the request and reply, so budgets see real numbers. */
function usageFor(reply: ScriptedReply, body: any) {
  if (reply.usage) return { ...reply.usage, total_tokens: reply.usage.prompt_tokens + reply.usage.completion_tokens };
  const prompt_tokens = Math.ceil(JSON.stringify(body.messages ?? []).length / 4);
  const replyChars = textPieces(reply).join('').length + toolCalls(reply).reduce((n, c) => n + c.name.length + c.arguments.length, 0);
  const completion_tokens = Math.max(1, Math.ceil(replyChars / 4));
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

function completion(reply: ScriptedReply, body: any) {
  const calls = toolCalls(reply);
  const text = textPieces(reply).join('');
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: reply.content === null || (!text && calls.length) ? null : text,
  };
  if (calls.length) {
    message.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  }
  const result: Record<string, unknown> = {
    id: 'chatcmpl-scripted',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [{ index: 0, message, finish_reason: finishReason(reply) }],
  };
  if (reply.usage !== null) result.usage = usageFor(reply, body);
  return result;
}

function chunkBase(body: any) {
  return { id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body.model };
}

/** One SSE payload carrying a piece of reply text. */
function textChunk(body: any, content: string): string {
  return JSON.stringify({ ...chunkBase(body), choices: [{ index: 0, delta: { content }, finish_reason: null }] });
}

/** The SSE `data:` payloads of a streamed reply, [DONE] included, in order. */
function sseEvents(reply: ScriptedReply, body: any): string[] {
  const base = chunkBase(body);
  const chunk = (delta: object, finish: string | null = null) => JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });

  const events: string[] = [chunk({ role: 'assistant', content: reply.content === null ? null : '' })];
  for (const piece of textPieces(reply)) events.push(chunk({ content: piece }));
  if (reply.malformed === 'chunk') events.push('{"choices": [{"delta": {"content": "oops"');

  toolCalls(reply).forEach((call, index) => {
    const head = { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
    if (!reply.split) {
      events.push(chunk({ tool_calls: [{ ...head, function: { name: call.name, arguments: call.arguments } }] }));
      return;
    }
    events.push(chunk({ tool_calls: [head] }));
    for (const piece of splitEvenly(call.arguments, 3)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });

  events.push(chunk({}, finishReason(reply)));
  if (body.stream_options?.include_usage && reply.usage !== null) {
    events.push(JSON.stringify({ ...base, choices: [], usage: usageFor(reply, body) }));
  }
  events.push('[DONE]');
  return events;
}

function splitEvenly(text: string, parts: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / parts));
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces.length ? pieces : [''];
}
