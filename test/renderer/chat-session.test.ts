/**
 * A tab's view state over a real backend (store, engine, scripted model): a window opened
 * or reloaded mid-reply shows the reply so far once, in whatever order its event stream
 * and its first load arrive.
 */
import { describe, expect, it } from 'vitest';
import type { BridgeEvent, LoomBridge } from '../../src/shared/contract';
import type { SessionMeta } from '../../src/shared/types';
import { ChatSession } from '../../src/renderer/state/chat-session';
import { SessionMetaCache } from '../../src/renderer/state/session-meta-cache';
import { useModelBackend, type ModelBackend } from '../bridge/model-backend';

const ctx = useModelBackend();

/**
 * A window's bridge whose events wait until `deliver()`: an event stream slower than the
 * page's requests, as after a reload. Its chat.context answer, once computed, can be held
 * back until `answerHeld` settles: a request slower than the event stream.
 */
function windowWithSlowEvents(backend: ModelBackend, answerHeld?: Promise<void>) {
  const listeners = new Set<(event: BridgeEvent) => void>();
  const held: BridgeEvent[] = [];
  let holding = true;
  let contextComputed = () => {};
  const computed = new Promise<void>((resolve) => (contextComputed = resolve));
  const unsubscribe = backend.backend.subscribe((event) => {
    if (holding) held.push(event);
    else for (const listener of listeners) listener(event);
  });
  const bridge: LoomBridge = {
    invoke: async (method, input) => {
      const answer = await backend.call(method, input);
      if (method === 'chat.context') {
        contextComputed();
        await answerHeld;
      }
      return answer as never;
    },
    onEvent: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onReconnect: () => () => {},
  };
  const deliver = () => {
    holding = false;
    for (const event of held.splice(0)) for (const listener of listeners) listener(event);
  };
  return { bridge, deliver, unsubscribe, computed };
}

function openView(id: string, window: ReturnType<typeof windowWithSlowEvents>): ChatSession {
  const chat = new ChatSession(id, window.bridge, new SessionMetaCache(window.bridge));
  window.bridge.onEvent((event) => chat.handle(event));
  return chat;
}

describe('a window opened mid-reply', () => {
  it('shows the reply so far once, whether the pieces around its load come before, after or ahead of it', async () => {
    const session = await ctx.call<SessionMeta>('chat.create', {});
    let resume = () => {};
    const paused = new Promise<void>((resolve) => (resume = resolve));
    ctx.model.enqueue({ chunks: ['Alpha ', 'beta ', 'gamma.'], pauseAfterChunks: 2, stallAfterChunks: 3, resume: paused });
    const turn = ctx.call('chat.send', { sessionId: session.id, text: 'Three words' });
    const replySoFar = () => ctx.backend.engine.contextState(session.id).replyInFlight;
    await expect.poll(replySoFar).toBe('Alpha ');

    const late = windowWithSlowEvents(ctx);
    const early = windowWithSlowEvents(ctx);
    let answer = () => {};
    const ahead = windowWithSlowEvents(ctx, new Promise<void>((resolve) => (answer = resolve)));
    const lateView = openView(session.id, late);
    const earlyView = openView(session.id, early);
    const aheadView = openView(session.id, ahead);
    // This one's answer says "Alpha "; "beta " streams before the answer reaches it.
    const aheadLoad = aheadView.load();
    await ahead.computed;
    resume();
    await expect.poll(replySoFar).toBe('Alpha beta ');
    ahead.deliver();
    answer();
    await aheadLoad;
    expect(aheadView.getSnapshot().streaming).toBe('Alpha beta ');

    // "beta " reaches one window after its load answered, the other before.
    await lateView.load();
    late.deliver();
    early.deliver();
    await earlyView.load();
    expect(lateView.getSnapshot().streaming).toBe('Alpha beta ');
    expect(earlyView.getSnapshot().streaming).toBe('Alpha beta ');

    ctx.backend.engine.stop(session.id);
    await turn;
    for (const window of [late, early, ahead]) window.unsubscribe();
  });
});
