/**
 * The model contract methods through the dispatcher both transports use: listing and the
 * connection test with the key scope of api-key-scope.ts, the session model, and the facts
 * a transcript page carries.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConnectionReport, ModelList, SessionInfo, TranscriptPage } from '../../src/shared/contract';
import type { SessionMeta } from '../../src/shared/types';
import { nth } from '../support/elements';
import { startScriptedServer, type ScriptedServer } from '../support/scripted-server';
import { useModelBackend } from './model-backend';

const ctx = useModelBackend({ apiKey: 'sk-launch-key-for-a' });

describe('models.list and models.test', () => {
  let other: ScriptedServer;
  beforeEach(async () => {
    other = await startScriptedServer();
  });
  afterEach(async () => {
    await other.close();
  });

  it('lists the models of the server in use, sending its key', async () => {
    expect(await ctx.call<ModelList>('models.list', {})).toEqual({ models: ['gemma4', 'scripted-model'] });
    expect(nth(ctx.model.modelRequests, 0).headers.authorization).toBe('Bearer sk-launch-key-for-a');
  });

  it('never sends that key to another server typed in the dialog; a key typed for it goes there', async () => {
    other.models = { ids: ['other-model'] };
    expect(await ctx.call<ModelList>('models.list', { baseUrl: other.baseUrl })).toEqual({ models: ['other-model'] });
    expect(nth(other.modelRequests, 0).headers.authorization).toBeUndefined();
    await ctx.call<ModelList>('models.list', { baseUrl: other.baseUrl, apiKey: 'sk-typed-for-b' });
    expect(nth(other.modelRequests, 1).headers.authorization).toBe('Bearer sk-typed-for-b');
  });

  it('says in one line why the list cannot be had', async () => {
    ctx.model.models = { ids: [], status: 401 };
    await expect(ctx.call('models.list', {})).rejects.toThrow(
      `models.list: The model server at ${ctx.model.baseUrl} refused the API key (HTTP 401). Check the API key.`,
    );
  });

  it('tests the connection for the dialog: the model missing, then found', async () => {
    const missing = await ctx.call<ConnectionReport>('models.test', { model: 'gpt-5' });
    expect(missing).toMatchObject({ ok: false, problem: 'missing_model' });
    expect(missing.message).toContain('It has gemma4, scripted-model.');
    expect(await ctx.call<ConnectionReport>('models.test', { model: 'scripted-model' })).toMatchObject({ ok: true });
  });

  it('refuses bad input with one message', async () => {
    await expect(ctx.call('models.list', { baseUrl: 'ftp://x' })).rejects.toThrow('The base URL must be an http(s) URL.');
    await expect(ctx.call('models.test', { model: ' ' })).rejects.toThrow('A model name is required.');
  });
});

describe('sessions.setModel', () => {
  it("changes the session's model for its next turn, recorded in sessions.info; the page carries each message's facts", async () => {
    const meta = await ctx.call<SessionMeta>('chat.create', {});
    ctx.model.enqueue({ text: 'One.' }, { text: 'Label' }, { text: 'Two.' }, { text: 'Label' });
    await ctx.call('chat.send', { sessionId: meta.id, text: 'first' });
    expect((await ctx.call<SessionMeta>('sessions.setModel', { id: meta.id, model: 'scripted-model' })).model).toBe('scripted-model');
    await ctx.call('chat.send', { sessionId: meta.id, text: 'second' });
    const chatModels = ctx.model.requests.filter((r) => r.body.tools).map((r) => r.body.model);
    expect(chatModels).toEqual(['gemma4', 'scripted-model']);

    const info = await ctx.call<SessionInfo>('sessions.info', { id: meta.id });
    expect(info.model_changes).toEqual([{ at: expect.any(String), from: 'gemma4', to: 'scripted-model', transcript_index: 3 }]);
    const page = await ctx.call<TranscriptPage>('sessions.transcript', { id: meta.id, offset: 1, limit: 10 });
    expect(page.facts).toHaveLength(page.messages.length);
    expect(page.facts.map((f) => f?.model ?? null)).toEqual([null, 'gemma4', null, 'scripted-model']);
  });

  it('refuses an empty model name', async () => {
    const meta = await ctx.call<SessionMeta>('chat.create', {});
    await expect(ctx.call('sessions.setModel', { id: meta.id, model: '' })).rejects.toThrow('A model name is required.');
  });
});
