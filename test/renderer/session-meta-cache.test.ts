/**
 * The window's session-metadata cache over a real backend (store, engine, dispatcher): one
 * request per session whoever asks, kept current by the engine's change events, a deleted
 * session known as missing, and an answer older than an event never undoing it.
 */
import { describe, expect, it } from 'vitest';
import { dispatch } from '../../src/backend/dispatch';
import { BridgeError } from '../../src/renderer/bridge/bridge-error';
import { SessionMetaCache } from '../../src/renderer/state/session-meta-cache';
import type { BridgeEvent, LoomBridge } from '../../src/shared/contract';
import type { SessionMeta } from '../../src/shared/types';
import { useModelBackend, type ModelBackend } from '../bridge/model-backend';

const ctx = useModelBackend();

/** A window's bridge over the backend, counting its sessions.info requests; `hold` delays their answers. */
function windowBridge(backend: ModelBackend, hold?: Promise<void>) {
  const infoRequests: string[] = [];
  const bridge: LoomBridge = {
    invoke: async (method, input) => {
      if (method === 'sessions.info') {
        infoRequests.push((input as { id: string }).id);
        const answer = await dispatch(backend.backend.handlers, method, input);
        await hold;
        if (!answer.ok) throw new BridgeError(answer.error.code, answer.error.message);
        return answer.value as never;
      }
      const result = await dispatch(backend.backend.handlers, method, input);
      if (!result.ok) throw new BridgeError(result.error.code, result.error.message);
      return result.value as never;
    },
    onEvent: (listener: (event: BridgeEvent) => void) => backend.backend.subscribe(listener),
    onReconnect: () => () => {},
    onAccessLost: () => () => {},
  };
  return { bridge, infoRequests };
}

describe('the session-metadata cache', () => {
  it('asks once per session, then follows renames and deletions from the events alone', async () => {
    const session = await ctx.call<SessionMeta>('chat.create', {});
    const { bridge, infoRequests } = windowBridge(ctx);
    const cache = new SessionMetaCache(bridge);
    const disconnect = cache.connect();
    cache.request(session.id);
    cache.request(session.id);
    await expect.poll(() => cache.meta(session.id)?.id).toBe(session.id);
    cache.request(session.id);
    expect(infoRequests).toEqual([session.id]);

    await ctx.call('sessions.rename', { id: session.id, title: 'Herons' });
    await expect.poll(() => cache.meta(session.id)?.title).toBe('Herons');
    await ctx.call('sessions.delete', { id: session.id });
    await expect.poll(() => cache.isMissing(session.id)).toBe(true);
    expect(cache.meta(session.id)).toBeUndefined();
    expect(infoRequests).toEqual([session.id]);
    disconnect();
  });

  it('knows a session the engine does not as missing', async () => {
    const cache = new SessionMetaCache(windowBridge(ctx).bridge);
    await expect(cache.info('0123456789abcdef0123456789abcdef')).rejects.toMatchObject({ code: 'unknown_session' });
    expect(cache.isMissing('0123456789abcdef0123456789abcdef')).toBe(true);
  });

  it('keeps a change announced while an older answer was on its way', async () => {
    const session = await ctx.call<SessionMeta>('chat.create', {});
    let release = () => {};
    const { bridge } = windowBridge(ctx, new Promise<void>((resolve) => (release = resolve)));
    const cache = new SessionMetaCache(bridge);
    const disconnect = cache.connect();
    const answer = cache.info(session.id);
    await ctx.call('sessions.rename', { id: session.id, title: 'Newer' });
    await expect.poll(() => cache.meta(session.id)?.title).toBe('Newer');
    release();
    expect((await answer).title).toBeNull();
    expect(cache.meta(session.id)?.title).toBe('Newer');
    disconnect();
  });
});
