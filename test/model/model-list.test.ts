/**
 * The model picker's list and the settings dialog's connection test, against the real
 * scripted server through the real `openai` client: each failure is said as the user needs it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listModels, testConnection } from '../../src/core/model/model-list';
import { nth } from '../support/elements';
import { startScriptedServer, type ScriptedServer } from '../support/scripted-server';

let server: ScriptedServer;

beforeEach(async () => {
  server = await startScriptedServer();
});

afterEach(async () => {
  await server.close();
});

describe('listModels', () => {
  it("lists the server's models sorted, sending the key given and nothing else", async () => {
    server.models = { ids: ['zeta', 'alpha', 'mid'] };
    expect(await listModels({ baseUrl: server.baseUrl, apiKey: 'sk-test-key' })).toEqual(['alpha', 'mid', 'zeta']);
    expect(nth(server.modelRequests, 0).headers.authorization).toBe('Bearer sk-test-key');

    await listModels({ baseUrl: server.baseUrl, apiKey: '' });
    expect(nth(server.modelRequests, 1).headers.authorization).toBeUndefined();
  });

  it('leaves out names that are not one clean line', async () => {
    server.models = { ids: ['good', 'bad\u001b[2Jname', 'x'.repeat(500)] };
    expect(await listModels({ baseUrl: server.baseUrl, apiKey: '' })).toEqual(['good']);
  });

  it('says the key was refused on 401', async () => {
    server.models = { ids: [], status: 401 };
    await expect(listModels({ baseUrl: server.baseUrl, apiKey: 'sk-wrong' })).rejects.toMatchObject({
      problem: 'refused',
      message: `The model server at ${server.baseUrl} refused the API key (HTTP 401). Check the API key.`,
    });
  });

  it('says a server that is down cannot be reached, with its URL', async () => {
    const { baseUrl } = server;
    await server.close();
    await expect(listModels({ baseUrl, apiKey: '' })).rejects.toMatchObject({
      problem: 'unreachable',
      message: `Cannot reach the model server at ${baseUrl} (connection refused). Check the URL and that the server is running.`,
    });
    server = await startScriptedServer(); // for afterEach
  });

  it('gives up after its time bound and says so', async () => {
    server.models = { ids: [], hangMs: 30_000 };
    const started = Date.now();
    await expect(listModels({ baseUrl: server.baseUrl, apiKey: '', timeoutMs: 300 })).rejects.toMatchObject({
      problem: 'timeout',
      message: `The model server at ${server.baseUrl} did not answer within 1 s. Check that it is running and not overloaded.`,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('says a server that is not an OpenAI-compatible API is not one', async () => {
    await expect(listModels({ baseUrl: server.baseUrl.replace(/\/v1$/, '/nothing'), apiKey: '' })).rejects.toMatchObject({ problem: 'http' });
  });
});

describe('testConnection', () => {
  it('succeeds with the number of models when the model is there', async () => {
    expect(await testConnection({ baseUrl: server.baseUrl, apiKey: '' }, 'gemma4')).toEqual({
      ok: true,
      message: `Connected to the model server at ${server.baseUrl}: 2 models, "gemma4" among them.`,
      models: ['gemma4', 'scripted-model'],
    });
  });

  it('names the missing model and lists what the server has', async () => {
    const report = await testConnection({ baseUrl: server.baseUrl, apiKey: '' }, 'gpt-5');
    expect(report).toMatchObject({ ok: false, problem: 'missing_model', models: ['gemma4', 'scripted-model'] });
    expect(report.message).toBe(`Connected, but the model server at ${server.baseUrl} has no model "gpt-5". It has gemma4, scripted-model.`);
  });

  it('answers a failure as a report, not an error', async () => {
    server.models = { ids: [], status: 403 };
    expect(await testConnection({ baseUrl: server.baseUrl, apiKey: '' }, 'gemma4')).toMatchObject({
      ok: false,
      problem: 'refused',
      message: `The model server at ${server.baseUrl} refused the API key (HTTP 403). It needs an API key; enter one.`,
    });
  });
});
