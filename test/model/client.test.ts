import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelClient, type ModelSettings, type RetryNotice, type ToolSpec } from '../../src/core/model/client';
import { ModelError } from '../../src/core/model/model-error';
import type { ChatMessage } from '../../src/shared/types';
import { nth } from '../support/elements';
import { startScriptedServer, type ScriptedServer } from '../support/scripted-server';

const MESSAGES: ChatMessage[] = [
  { role: 'system', content: 'You are Loom.' },
  { role: 'user', content: 'List the files, please.' },
];

const GLOB_TOOL: ToolSpec = {
  type: 'function',
  function: { name: 'glob_files', description: 'Find files', parameters: { type: 'object', properties: { pattern: { type: 'string' } } } },
};

let server: ScriptedServer;

beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(() => server.close());

/** A client with quick retries so failure tests stay fast. */
function client(overrides: Partial<ModelSettings> = {}): ModelClient {
  return new ModelClient({
    baseUrl: server.baseUrl,
    apiKey: 'sk-test-key',
    model: 'gemma4',
    timeoutMs: 5_000,
    retryBaseMs: 1,
    retryMaxDelayMs: 50,
    ...overrides,
  });
}

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ModelError);
  return err as ModelError;
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('ModelClient replies', () => {
  it('streams text to onText piece by piece and returns the whole message', async () => {
    server.enqueue({ text: 'Here are the files you asked for.', usage: { prompt_tokens: 42, completion_tokens: 8 } });
    const deltas: string[] = [];
    const result = await client().chat({ messages: MESSAGES, onText: (d) => deltas.push(d) });

    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Here are the files you asked for.');
    expect(result.message).toEqual({ role: 'assistant', content: 'Here are the files you asked for.' });
    expect(result.finishReason).toBe('stop');
    expect(result.usage).toEqual({ prompt_tokens: 42, completion_tokens: 8, estimated: false });
  });

  it('sends model, messages, tools, temperature, max_tokens and the api key', async () => {
    server.enqueue({ text: 'ok' });
    await client().chat({ messages: MESSAGES, tools: [GLOB_TOOL], temperature: 0, maxTokens: 1024 });

    const request = nth(server.requests, 0);
    expect(request.body).toMatchObject({
      model: 'gemma4',
      messages: MESSAGES,
      tools: [GLOB_TOOL],
      temperature: 0,
      max_tokens: 1024,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(request.headers.authorization).toBe('Bearer sk-test-key');
  });

  it('leaves out tools, temperature and max_tokens when not given, and never forwards OPENAI_ORG_ID', async () => {
    process.env.OPENAI_ORG_ID = 'org-secret-team';
    try {
      server.enqueue({ text: 'ok' });
      await client().chat({ messages: MESSAGES });
    } finally {
      delete process.env.OPENAI_ORG_ID;
    }
    const request = nth(server.requests, 0);
    expect(Object.keys(request.body)).not.toContain('tools');
    expect(Object.keys(request.body)).not.toContain('temperature');
    expect(Object.keys(request.body)).not.toContain('max_tokens');
    expect(request.headers['openai-organization']).toBeUndefined();
  });

  it('assembles a tool call whose arguments arrive over several chunks', async () => {
    server.enqueue({ content: null, toolCalls: [{ id: 'call_a', name: 'glob_files', arguments: { pattern: 'src/**/*.ts' } }], split: true });
    const result = await client().chat({ messages: MESSAGES, tools: [GLOB_TOOL] });

    expect(result.message).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'glob_files', arguments: '{"pattern":"src/**/*.ts"}' } }],
    });
    expect(result.finishReason).toBe('tool_calls');
  });

  it('takes a whole tool call sent in one chunk, with text before it', async () => {
    server.enqueue({ text: 'Let me look.', toolCalls: [{ id: 'call_b', name: 'read_file', arguments: { path: 'README.md' } }] });
    const deltas: string[] = [];
    const result = await client().chat({ messages: MESSAGES, onText: (d) => deltas.push(d) });

    expect(deltas.join('')).toBe('Let me look.');
    expect(result.message.content).toBe('Let me look.');
    expect(result.message.tool_calls).toEqual([{ id: 'call_b', type: 'function', function: { name: 'read_file', arguments: '{"path":"README.md"}' } }]);
  });

  it('keeps two parallel tool calls apart, split or whole', async () => {
    const calls = [
      { id: 'c1', name: 'read_file', arguments: { path: 'a.ts' } },
      { id: 'c2', name: 'grep', arguments: { pattern: 'TODO', path: 'src' } },
    ];
    server.enqueue({ toolCalls: calls, split: true }, { toolCalls: calls });
    for (let i = 0; i < 2; i++) {
      const result = await client().chat({ messages: MESSAGES });
      expect(result.message.tool_calls?.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)])).toEqual([
        ['c1', 'read_file', { path: 'a.ts' }],
        ['c2', 'grep', { pattern: 'TODO', path: 'src' }],
      ]);
    }
  });

  it('copes with content null and no tool calls (an empty reply)', async () => {
    server.enqueue({ content: null });
    const result = await client().chat({ messages: MESSAGES });
    expect(result.message).toEqual({ role: 'assistant', content: '' });
  });

  it('estimates usage when the server reports none', async () => {
    server.enqueue({ text: 'A reply of some forty characters or so.', usage: null });
    const result = await client().chat({ messages: MESSAGES, tools: [GLOB_TOOL] });
    expect(result.usage.estimated).toBe(true);
    expect(result.usage.prompt_tokens).toBeGreaterThan(20);
    expect(result.usage.completion_tokens).toBeGreaterThan(5);
  });

  it('passes any finish_reason through', async () => {
    server.enqueue({ text: 'truncated repl', finishReason: 'length' });
    const result = await client().chat({ messages: MESSAGES });
    expect(result.finishReason).toBe('length');
  });

  it('accepts a whole JSON completion from a server that ignores stream: true', async () => {
    server.enqueue({ ignoreStream: true, text: 'Whole reply.', toolCalls: [{ id: 'c3', name: 'todo_list', arguments: {} }] });
    const deltas: string[] = [];
    const result = await client().chat({ messages: MESSAGES, onText: (d) => deltas.push(d) });
    expect(deltas).toEqual(['Whole reply.']);
    expect(nth(result.message.tool_calls ?? [], 0).function).toEqual({ name: 'todo_list', arguments: '{}' });
    expect(result.usage.estimated).toBe(false);
  });
});

describe('ModelClient retries', () => {
  it('retries a 429 after the Retry-After the server asked for (capped), then succeeds', async () => {
    server.enqueue({ status: 429, error: 'Too many requests', retryAfter: 1 }, { text: 'finally' });
    const notices: RetryNotice[] = [];
    const result = await client().chat({ messages: MESSAGES, onRetry: (n) => notices.push(n) });

    expect(result.message.content).toBe('finally');
    expect(server.requests).toHaveLength(2);
    // 1 s asked for, capped at retryMaxDelayMs (50); plain backoff would have been ~1 ms.
    expect(notices).toHaveLength(1);
    expect(nth(notices, 0).delayMs).toBe(50);
    expect(nth(notices, 0).error.status).toBe(429);
  });

  it('reads retry-after-ms too', async () => {
    server.enqueue({ status: 503, error: 'loading model', headers: { 'retry-after-ms': '20' } }, { text: 'ok' });
    const notices: RetryNotice[] = [];
    await client().chat({ messages: MESSAGES, onRetry: (n) => notices.push(n) });
    expect(notices.map((n) => n.delayMs)).toEqual([20]);
  });

  it('gives up on repeated 500s after the configured retries with the server message', async () => {
    server.enqueue(...Array.from({ length: 4 }, () => ({ status: 500, error: 'CUDA out of memory' })));
    const err = await failure(client().chat({ messages: MESSAGES }));

    expect(server.requests).toHaveLength(4);
    expect(err.kind).toBe('http');
    expect(err.status).toBe(500);
    expect(err.message).toBe(`The model server at ${server.baseUrl} answered HTTP 500: CUDA out of memory. The server failed; try again, or check its logs.`);
  });

  it('honours maxRetries', async () => {
    server.enqueue({ status: 502 }, { status: 502 });
    await failure(client({ maxRetries: 1 }).chat({ messages: MESSAGES }));
    expect(server.requests).toHaveLength(2);
    expect(server.pending()).toBe(0);
  });

  it('does not retry a 400 and shows what the server said', async () => {
    server.enqueue({ status: 400, error: 'context length exceeded' }, { text: 'never sent' });
    const err = await failure(client().chat({ messages: MESSAGES }));
    expect(server.requests).toHaveLength(1);
    expect(err.message).toContain('HTTP 400: context length exceeded');
  });

  it('says to check --model on 404 and --api-key on 401', async () => {
    server.enqueue({ status: 404, error: 'model "gemma4" not found, try pulling it first' }, { status: 401, error: 'bad key' });
    expect((await failure(client().chat({ messages: MESSAGES }))).message).toMatch(/HTTP 404: model "gemma4" not found.*Check --model/);
    expect((await failure(client().chat({ messages: MESSAGES }))).message).toMatch(/HTTP 401: bad key\. Check --api-key\./);
  });

  it('cleans the server message: no control characters, one line, bounded, no echoed keys', async () => {
    const hostile = `\u001b[31mred\u001b[0m\nsecond line sk-abcdefghijklmnopqrstuvwxyz ${'x'.repeat(1000)}`;
    server.enqueue({ status: 400, error: hostile });
    const err = await failure(client().chat({ messages: MESSAGES }));
    expect(err.message).not.toMatch(/[\u0000-\u001f]/);
    expect(err.message).not.toContain('sk-abcdefghijklmnopqrstuvwxyz');
    expect(err.message).toContain('[31mred');
    expect(err.message.length).toBeLessThan(500);
  });

  it('names the URL when nothing listens there', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
    const notices: RetryNotice[] = [];
    const err = await failure(client({ baseUrl }).chat({ messages: MESSAGES, onRetry: (n) => notices.push(n) }));

    expect(err.kind).toBe('unreachable');
    expect(err.message).toBe(`Cannot reach the model server at ${baseUrl} (connection refused). Start it (e.g. \`ollama serve\`) or pass --base-url.`);
    expect(notices).toHaveLength(3);
  });

  it('says so when the URL names a port fetch refuses, without retrying', async () => {
    const baseUrl = 'http://127.0.0.1:9/v1';
    const notices: RetryNotice[] = [];
    const err = await failure(client({ baseUrl }).chat({ messages: MESSAGES, onRetry: (n) => notices.push(n) }));
    expect(err.message).toBe(
      `Cannot reach the model server at ${baseUrl} (fetch refuses that port as unsafe; use another one). Start it (e.g. \`ollama serve\`) or pass --base-url.`,
    );
    expect(notices).toEqual([]);
  });

  it('retries a stream cut off before any text reached the user', async () => {
    server.enqueue({ text: 'lost reply', cutAfterChunks: 1 }, { text: 'second try' });
    const deltas: string[] = [];
    const result = await client().chat({ messages: MESSAGES, onText: (d) => deltas.push(d) });
    expect(server.requests).toHaveLength(2);
    expect(deltas.join('')).toBe('second try');
    expect(result.message.content).toBe('second try');
  });

  it('reports a stream cut off after text was shown, without repeating it', async () => {
    server.enqueue({ text: 'one two three four five', cutAfterChunks: 3 }, { text: 'must not be requested' });
    const deltas: string[] = [];
    const err = await failure(client().chat({ messages: MESSAGES, onText: (d) => deltas.push(d) }));
    expect(err.kind).toBe('bad_response');
    expect(err.message).toContain('cut the reply off midway');
    expect(deltas.join('')).toBe('one two ');
    expect(server.requests).toHaveLength(1);
  });
});

describe('ModelClient failures', () => {
  it('times out a server that accepts and never answers, without retrying', async () => {
    server.enqueue({ hangMs: 30_000 }, { text: 'not reached' });
    const err = await failure(client({ timeoutMs: 150 }).chat({ messages: MESSAGES }));
    expect(err.kind).toBe('timeout');
    expect(err.message).toContain(server.baseUrl);
    expect(err.message).toContain('--llm-timeout');
    expect(server.requests).toHaveLength(1);
  });

  it('times out a stream that stalls midway', async () => {
    server.enqueue({ text: 'one two three', stallAfterChunks: 2 });
    const err = await failure(client().chat({ messages: MESSAGES, timeoutMs: 150 }));
    expect(err.kind).toBe('timeout');
  });

  it('stops on abort mid-stream with kind aborted', async () => {
    server.enqueue({ text: 'one two three four', stallAfterChunks: 3 });
    const controller = new AbortController();
    const deltas: string[] = [];
    const err = await failure(
      client().chat({
        messages: MESSAGES,
        signal: controller.signal,
        onText: (d) => {
          deltas.push(d);
          controller.abort();
        },
      }),
    );
    expect(err.kind).toBe('aborted');
    expect(deltas).toEqual(['one ']);
  });

  it('stops on abort while waiting for the server, and while waiting to retry', async () => {
    server.enqueue({ hangMs: 30_000 });
    const controller = new AbortController();
    const pending = client().chat({ messages: MESSAGES, signal: controller.signal });
    await server.waitForRequests(1);
    controller.abort();
    expect((await failure(pending)).kind).toBe('aborted');

    server.enqueue({ status: 429, retryAfter: 30 });
    const second = new AbortController();
    const retrying = client({ retryMaxDelayMs: 30_000 }).chat({
      messages: MESSAGES,
      signal: second.signal,
      onRetry: () => second.abort(),
    });
    expect((await failure(retrying)).kind).toBe('aborted');
    expect(server.requests).toHaveLength(2);
  });

  it('refuses to start with an already aborted signal', async () => {
    const err = await failure(client().chat({ messages: MESSAGES, signal: AbortSignal.abort() }));
    expect(err.kind).toBe('aborted');
    expect(server.requests).toHaveLength(0);
  });

  it('calls a garbage body what it is', async () => {
    server.enqueue({ malformed: 'body' });
    const err = await failure(client().chat({ messages: MESSAGES }));
    expect(err.kind).toBe('bad_response');
    expect(err.message).toBe(
      `The model server at ${server.baseUrl} sent a reply that is not an OpenAI-compatible chat completion. ` +
        "Check --base-url: it should be the server's OpenAI-compatible API, usually ending in /v1.",
    );
    expect(server.requests).toHaveLength(1);
  });

  it('calls an unparsable stream chunk a bad response', async () => {
    server.enqueue({ text: 'fine so far', malformed: 'chunk' });
    const err = await failure(client().chat({ messages: MESSAGES }));
    expect(err.kind).toBe('bad_response');
  });

  it('lets an error thrown by onText through unchanged, without retrying', async () => {
    server.enqueue({ text: 'hello world' }, { text: 'not requested' });
    const boom = new Error('terminal closed');
    const err = await client()
      .chat({
        messages: MESSAGES,
        onText: () => {
          throw boom;
        },
      })
      .catch((e: unknown) => e);
    expect(err).toBe(boom);
    expect(server.requests).toHaveLength(1);
  });
});
