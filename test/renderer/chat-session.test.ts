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
import { nth } from '../support/elements';

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
    onAccessLost: () => () => {},
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

/** A window's bridge straight onto the backend, events delivered as they come. */
function liveWindow(backend: ModelBackend): LoomBridge {
  return {
    invoke: (method, input) => backend.call<never>(method, input),
    onEvent: (listener) => backend.backend.subscribe(listener),
    onReconnect: () => () => {},
    onAccessLost: () => () => {},
  };
}

function liveView(id: string, bridge: LoomBridge): ChatSession {
  const chat = new ChatSession(id, bridge, new SessionMetaCache(bridge));
  bridge.onEvent((event) => chat.handle(event));
  return chat;
}

describe("a chat controller's phase", () => {
  it('is running for a turn and idle after it; compacting while Compact now waits for its summary', async () => {
    const session = await ctx.call<SessionMeta>('chat.create', {});
    const chat = liveView(session.id, liveWindow(ctx));
    await chat.load();
    expect(chat.getSnapshot().phase).toBe('idle');

    let resumeReply = () => {};
    const long = ' words'.repeat(300);
    ctx.model.enqueue({ text: `One.${long}`, pauseAfterChunks: 1, resume: new Promise<void>((resolve) => (resumeReply = resolve)) }, { text: 'Summary' });
    const sent = chat.send('first');
    await expect.poll(() => chat.getSnapshot().phase).toBe('running');
    resumeReply();
    expect(await sent).toBe(true);
    expect(chat.getSnapshot().phase).toBe('idle');
    await ctx.backend.engine.afterTurnSettled(session.id);
    ctx.model.enqueue({ text: `Two.${long}` });
    expect(await chat.send('second')).toBe(true);

    let resumeSummary = () => {};
    ctx.model.enqueue({ text: 'Talked about two things.', pauseAfterChunks: 0, resume: new Promise<void>((resolve) => (resumeSummary = resolve)) });
    const compacted = chat.compact();
    expect(chat.getSnapshot().phase).toBe('compacting');
    await ctx.model.waitForRequests(4);
    expect(chat.getSnapshot().phase).toBe('compacting');
    resumeSummary();
    await compacted;
    expect(chat.getSnapshot().phase).toBe('idle');
    expect(chat.getSnapshot().markers).toHaveLength(1);
    expect(chat.getSnapshot().error).toBeNull();
  });

  it('goes back to running, not idle, after a compaction within a turn', async () => {
    const session = await ctx.call<SessionMeta>('chat.create', {});
    const chat = new ChatSession(session.id, liveWindow(ctx), new SessionMetaCache(liveWindow(ctx)));
    await chat.load();
    const sessionId = session.id;
    const phases: string[] = [];
    // The events the engine sends when it compacts before a request, within a turn.
    for (const event of [
      { type: 'turn', sessionId, phase: 'start' },
      { type: 'compaction', sessionId, phase: 'start' },
      { type: 'compaction', sessionId, phase: 'done', before_tokens: 900, after_tokens: 200 },
      { type: 'turn', sessionId, phase: 'end' },
    ] as BridgeEvent[]) {
      chat.handle(event);
      phases.push(chat.getSnapshot().phase);
    }
    expect(phases).toEqual(['running', 'compacting', 'running', 'idle']);
  });
});

describe("a chat controller's compaction markers", () => {
  it("carry the store's record, and undo, here or in another window, marks it undone and raises the meter", async () => {
    const session = await ctx.call<SessionMeta>('chat.create', {});
    const chat = liveView(session.id, liveWindow(ctx));
    const other = liveView(session.id, liveWindow(ctx));
    await Promise.all([chat.load(), other.load()]);
    const long = ' words'.repeat(300);
    ctx.model.enqueue({ text: `One.${long}` }, { text: 'Summary' });
    expect(await chat.send('first')).toBe(true);
    await ctx.backend.engine.afterTurnSettled(session.id);
    ctx.model.enqueue({ text: `Two.${long}` }, { text: 'Talked about two things.' });
    expect(await chat.send('second')).toBe(true);

    await chat.compact({ focus: '  ' });
    expect(ctx.model.requests.at(-1)!.body.messages[0].content).not.toContain('Above all');
    await expect.poll(() => chat.getSnapshot().markers[0]?.record?.undoable).toBe(true);
    const { record } = nth(chat.getSnapshot().markers, 0);
    expect(record).toMatchObject({ summarised_from: 0, kept_from: 3, steps: 1, undone_at: null });
    expect(chat.getSnapshot().contextTokens).toBe(record!.after_tokens);

    await ctx.call('chat.uncompact', { sessionId: session.id });
    for (const view of [chat, other]) {
      await expect.poll(() => view.getSnapshot().markers[0]?.record?.undone_at).toEqual(expect.any(String));
      expect(nth(view.getSnapshot().markers, 0).record?.undoable).toBe(false);
      expect(view.getSnapshot().contextTokens).toBeGreaterThan(record!.after_tokens);
    }
  });
});

describe('a transcript page fetched while messages are appended live', () => {
  it('comes back short of them, and the reply shows all the same: each message is held at its position', async () => {
    const session = await ctx.call<SessionMeta>('chat.create', {});
    ctx.model.enqueue({ text: 'Noted.' });
    let releasePage = () => {};
    const pageHeld = new Promise<void>((resolve) => (releasePage = resolve));
    let heldOnce = false;
    const live = liveWindow(ctx);
    // The first sessions.transcript answer is computed at once and delivered only after the turn's messages arrived.
    const bridge: LoomBridge = {
      ...live,
      invoke: async (method, input) => {
        const answer = await live.invoke(method, input);
        if (method === 'sessions.transcript' && !heldOnce) {
          heldOnce = true;
          await pageHeld;
        }
        return answer;
      },
    };
    const chat = liveView(session.id, bridge);
    const loaded = chat.load();
    await expect.poll(() => heldOnce).toBe(true);
    await ctx.call('chat.send', { sessionId: session.id, text: 'Half a thought about herons' });
    await expect.poll(() => chat.getSnapshot().total).toBe(3);
    releasePage();
    await loaded;
    expect(chat.transcript.message(2)?.content).toBe('Noted.');
    expect(chat.transcript.message(1)?.content).toContain('Half a thought about herons');
    expect(chat.getSnapshot().total).toBe(3);
    // No second fetch was needed: the page holds every position it covers.
    expect(chat.transcript.pagesLacking(0, 2, 3)).toEqual([]);
  });

  it('is unchanged by the same message events again, or by older ones after a reload', async () => {
    const session = await ctx.call<SessionMeta>('chat.create', {});
    const heard: BridgeEvent[] = [];
    const off = ctx.backend.subscribe((event) => heard.push(event));
    ctx.model.enqueue({ text: 'Noted.' });
    await ctx.call('chat.send', { sessionId: session.id, text: 'Herons again' });
    off();
    const chat = liveView(session.id, liveWindow(ctx));
    await chat.load();
    const loaded = chat.getSnapshot();
    const messages = heard.filter((event) => event.type === 'message' && event.sessionId === session.id);
    expect(messages).toHaveLength(2);
    for (const event of [...messages, ...messages.reverse()]) chat.handle(event);
    expect(chat.getSnapshot()).toMatchObject({ total: loaded.total, streaming: '' });
    expect(chat.transcript.message(2)?.content).toBe('Noted.');
  });
});
