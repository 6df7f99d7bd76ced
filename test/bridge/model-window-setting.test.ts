/**
 * The settings dialog's "Model window" (docs/DESIGN.md#the-models-window): saved, it lowers
 * the budget of the open sessions at once (chat.context's maxContextTokens); cleared, the
 * window is learnt again and the user's budget is back. A bad figure is one line.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openBackend, type Backend } from '../../src/backend/backend';
import { dispatch } from '../../src/backend/dispatch';
import { JsonFileSettingsStore } from '../../src/backend/settings-store';

let backend: Backend | undefined;
let root = '';
afterEach(async () => {
  await backend?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('the model window setting', () => {
  it('reaches the open sessions at once, and clearing it gives the budget back', async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-window-setting-'));
    const dataDir = path.join(root, 'data');
    backend = openBackend({ dataDir, settingsStore: new JsonFileSettingsStore(dataDir), shell: 'browser', projectDir: root, env: {} });
    const call = async (method: Parameters<typeof dispatch>[1], input: unknown): Promise<unknown> => {
      const answer = (await dispatch(backend!.handlers, method, input)) as { ok: true; value: unknown } | { ok: false; error: { message: string } };
      if (!answer.ok) throw new Error(answer.error.message);
      return answer.value;
    };
    const { id } = (await call('chat.create', {})) as { id: string };
    expect(await call('chat.context', { sessionId: id })).toMatchObject({ maxContextTokens: 24_000, modelWindow: null });

    expect(await call('settings.set', { modelWindow: 8192 })).toMatchObject({ modelWindow: 8192 });
    expect(await call('chat.context', { sessionId: id })).toMatchObject({ maxContextTokens: 6_144, modelWindow: { tokens: 8192, source: 'setting' } });
    expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'settings.json'), 'utf8'))).toMatchObject({ modelWindow: 8192 });

    expect(await call('settings.set', { modelWindow: null })).toMatchObject({ modelWindow: null });
    expect(await call('chat.context', { sessionId: id })).toMatchObject({ maxContextTokens: 24_000, modelWindow: null });

    await expect(call('settings.set', { modelWindow: 12 })).rejects.toThrow('A model window is at least 1000 tokens.');
    expect(await call('settings.get', {})).toMatchObject({ modelWindow: null });

    // The session model dialog's window: kept for that model, and it wins over the general setting.
    await call('settings.set', { modelWindow: 100_000 });
    await call('sessions.setModel', { id, model: 'small-model', window: 4096 });
    expect(await call('chat.context', { sessionId: id })).toMatchObject({ maxContextTokens: 3_072, modelWindow: { tokens: 4096, source: 'setting' } });
    const rows = backend.store.db.prepare("SELECT model, tokens FROM model_windows WHERE source = 'setting'").all();
    expect(rows).toEqual([{ model: 'small-model', tokens: 4096 }]);
    // Left out, the window stays as it is; null forgets it, and the general setting is back.
    await call('sessions.setModel', { id, model: 'small-model' });
    expect(await call('chat.context', { sessionId: id })).toMatchObject({ modelWindow: { tokens: 4096 } });
    await call('sessions.setModel', { id, model: 'small-model', window: null });
    expect(await call('chat.context', { sessionId: id })).toMatchObject({ maxContextTokens: 24_000, modelWindow: { tokens: 100_000, source: 'setting' } });
    await expect(call('sessions.setModel', { id, model: 'small-model', window: 5 })).rejects.toThrow('A model window is at least 1000 tokens.');
  });
});
