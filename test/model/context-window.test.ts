/**
 * Where a model's window is read from (docs/DESIGN.md#the-models-window): refusals in the
 * words of the servers Loom meets, /models entries, Ollama's /api/show against a real
 * loopback server, and how the known figures combine into the budget.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  contextOverflowOf,
  effectiveBudget,
  resolveWindow,
  windowAfterRefusal,
  windowFromModelEntry,
  windowFromOllamaShow,
} from '../../src/core/model/context-window';
import { askServerWindow } from '../../src/core/model/server-window';
import { startScriptedServer, type ScriptedServer } from '../support/scripted-server';

describe('a refusal for size', () => {
  it.each([
    ['OpenAI', 400, 'context_length_exceeded', "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", 8192],
    [
      'vLLM',
      400,
      null,
      "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens (39000 in the messages, 1000 in the completion).",
      32768,
    ],
    ['llama.cpp', 400, 'exceed_context_size_error', 'request (9000 tokens) exceeds the available context size (4096 tokens), try increasing it', 4096],
    ['Anthropic-style', 400, 'invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum', 200000],
    ['a newer OpenAI wording, no figure', 400, 'context_length_exceeded', 'Your input exceeds the context window of this model.', null],
  ])('%s is read, with the limit it states', (_name, status, code, message, limit) => {
    expect(contextOverflowOf(status, code, message)).toEqual({ statedLimit: limit });
  });

  it('other errors are not taken for one', () => {
    expect(contextOverflowOf(400, 'invalid_request_error', 'Unknown parameter: foo')).toBeNull();
    expect(contextOverflowOf(500, 'context_length_exceeded', "This model's maximum context length is 8192 tokens.")).toBeNull();
    expect(contextOverflowOf(429, null, 'Rate limit: too many tokens per minute')).toBeNull();
    // A figure no model has is noise, not a window.
    expect(contextOverflowOf(400, 'context_length_exceeded', 'maximum context length is 12 tokens')).toEqual({ statedLimit: null });
  });

  it('teaches the stated limit when the request was over it, else a little less than was sent', () => {
    expect(windowAfterRefusal({ statedLimit: 8192 }, 20_000)).toBe(8192);
    // Under the stated limit by Loom's estimate: the estimate runs low for this text.
    expect(windowAfterRefusal({ statedLimit: 8192 }, 7_000)).toBe(5_600);
    expect(windowAfterRefusal({ statedLimit: null }, 10_000)).toBe(8_000);
  });
});

describe('a window the server lists', () => {
  it.each([
    [{ id: 'm', context_length: 131072 }, 131072],
    [{ id: 'm', max_model_len: 32768 }, 32768],
    [{ id: 'm', max_context_length: '8192' }, 8192],
    [{ id: 'm', context_window: 200000 }, 200000],
    [{ id: 'm', context_length: -1 }, null],
    [{ id: 'm', context_length: 1e12 }, null],
    [{ id: 'm', context_length: 4096.5 }, null],
    [{ id: 'm' }, null],
    ['m', null],
  ])('%j gives %s', (entry, tokens) => {
    expect(windowFromModelEntry(entry)).toBe(tokens);
  });

  it("Ollama's /api/show: num_ctx when its parameters set one, else the architecture's length", () => {
    expect(windowFromOllamaShow({ parameters: 'stop "<end>"\nnum_ctx 8192', model_info: { 'gemma3.context_length': 131072 } })).toBe(8192);
    expect(windowFromOllamaShow({ parameters: 'temperature 0.7', model_info: { 'general.architecture': 'gemma3', 'gemma3.context_length': 131072 } })).toBe(
      131072,
    );
    expect(windowFromOllamaShow({ model_info: 'not an object' })).toBeNull();
    expect(windowFromOllamaShow(null)).toBeNull();
  });
});

describe('asking a real server', () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => server?.close());

  it('reads the /models entry of the model, and Ollama through /api/show', async () => {
    server = await startScriptedServer();
    const at = { baseUrl: server.baseUrl, apiKey: '' };
    server.models = { ids: ['gemma4', 'other'], windows: { other: 4096 } };
    expect(await askServerWindow(at, 'other')).toBe(4096);
    expect(await askServerWindow(at, 'gemma4')).toBeNull();

    server.models = { ids: ['gemma4'], ollamaShow: { parameters: 'num_ctx 16384', model_info: { 'gemma3.context_length': 131072 } } };
    expect(await askServerWindow(at, 'gemma4')).toBe(16384);
    expect(server.modelRequests.at(-1)).toMatchObject({ path: '/api/show', body: { model: 'gemma4' } });
  });

  it('a server that fails, hangs or is gone gives no figure and no error', async () => {
    server = await startScriptedServer();
    server.models = { ids: [], status: 500 };
    expect(await askServerWindow({ baseUrl: server.baseUrl, apiKey: '' }, 'gemma4')).toBeNull();
    server.models = { ids: [], hangMs: 30_000 };
    expect(await askServerWindow({ baseUrl: server.baseUrl, apiKey: '', timeoutMs: 200 }, 'gemma4')).toBeNull();
    const gone = server.baseUrl;
    await server.close();
    server = undefined;
    expect(await askServerWindow({ baseUrl: gone, apiKey: '' }, 'gemma4')).toBeNull();
  });
});

describe('the window in force', () => {
  it("takes the server's figure, else the setting, else a refusal's, which caps either", () => {
    expect(resolveWindow({})).toBeNull();
    expect(resolveWindow({ server: 32768, setting: 8192 })).toEqual({ tokens: 32768, source: 'server' });
    expect(resolveWindow({ setting: 8192 })).toEqual({ tokens: 8192, source: 'setting' });
    expect(resolveWindow({ refusal: 4096 })).toEqual({ tokens: 4096, source: 'refusal' });
    expect(resolveWindow({ server: 131072, refusal: 8192 })).toEqual({ tokens: 8192, source: 'refusal' });
    expect(resolveWindow({ setting: 4096, refusal: 8192 })).toEqual({ tokens: 4096, source: 'setting' });
  });

  it("lowers the user's budget to what the model can take with room to answer, never raises it", () => {
    expect(effectiveBudget(24_000, null)).toBe(24_000);
    expect(effectiveBudget(24_000, { tokens: 131072, source: 'server' })).toBe(24_000);
    expect(effectiveBudget(24_000, { tokens: 32768, source: 'server' })).toBe(24_000);
    expect(effectiveBudget(24_000, { tokens: 8192, source: 'refusal' })).toBe(6_144);
    expect(effectiveBudget(24_000, { tokens: 4096, source: 'setting' })).toBe(3_072);
  });
});
