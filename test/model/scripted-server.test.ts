import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nth } from '../support/elements';
import { startScriptedServer, type ScriptedServer } from '../support/scripted-server';

/** The scripted server speaks what the real openai client expects, streamed and not. */
describe('scripted server', () => {
  let server: ScriptedServer;
  let client: OpenAI;
  beforeEach(async () => {
    server = await startScriptedServer();
    client = new OpenAI({ baseURL: server.baseUrl, apiKey: 'k', maxRetries: 0 });
  });
  afterEach(() => server.close());

  it('streams text and split tool calls that the openai client reassembles', async () => {
    server.enqueue({ text: 'Hello there friend', toolCalls: [{ name: 'grep', arguments: { pattern: 'x' } }], split: true });
    const stream = await client.chat.completions.create({
      model: 'gemma4',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const texts: string[] = [];
    let args = '';
    let usage: unknown;
    let argChunks = 0;
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      const delta = chunk.choices[0]?.delta;
      if (delta?.content) texts.push(delta.content);
      for (const call of delta?.tool_calls ?? []) {
        args += call.function?.arguments ?? '';
        if (call.function?.arguments) argChunks++;
      }
    }
    expect(texts.join('')).toBe('Hello there friend');
    expect(texts.length).toBeGreaterThan(1);
    expect(JSON.parse(args)).toEqual({ pattern: 'x' });
    expect(argChunks).toBeGreaterThan(1);
    expect(usage).toMatchObject({ prompt_tokens: expect.any(Number) });
    expect(nth(server.requests, 0).body.model).toBe('gemma4');
    expect(nth(server.requests, 0).headers.authorization).toBe('Bearer k');
  });

  it('answers non-streamed requests with a full completion', async () => {
    server.enqueue({ content: null, toolCalls: [{ id: 'c9', name: 'todo_list', arguments: '{}' }], usage: null });
    const reply = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(nth(reply.choices, 0).message.content).toBeNull();
    expect(nth(reply.choices, 0).message.tool_calls?.[0]).toMatchObject({ id: 'c9', function: { name: 'todo_list' } });
    expect(nth(reply.choices, 0).finish_reason).toBe('tool_calls');
    expect(reply.usage).toBeUndefined();
  });

  it('fails loudly when no reply is queued, and serves the model list', async () => {
    await expect(client.chat.completions.create({ model: 'm', messages: [] })).rejects.toThrow(/no reply queued/);
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toContain('gemma4');
  });

  it('sends HTTP errors with retry-after and dynamic replies', async () => {
    server.enqueue({ status: 429, error: 'slow down', retryAfter: 2 }, { respond: (body) => ({ text: `echo ${body.messages[0].content}` }) });
    const err = await client.chat.completions.create({ model: 'm', messages: [] }).catch((e) => e);
    expect(err.status).toBe(429);
    expect(err.headers.get('retry-after')).toBe('2');
    const reply = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'ping' }] });
    expect(nth(reply.choices, 0).message.content).toBe('echo ping');
  });

  it('close() ends a hanging request', async () => {
    server.enqueue({ hangMs: 60_000 });
    const pending = client.chat.completions.create({ model: 'm', messages: [] }).catch((e) => e);
    await server.waitForRequests(1);
    await server.close();
    expect(await pending).toBeInstanceOf(Error);
    server = await startScriptedServer();
  });
});
