/**
 * The branch methods over the dispatcher both transports use, on a real backend: fork at a
 * message, regenerate and edit (each followed by chat.reply), branch points and family; the
 * bounds of their input; a reply refused while nothing waits for one.
 */
import { describe, expect, it } from 'vitest';
import type { BranchPoint, SessionSearchHit } from '../../src/shared/contract';
import type { SessionFamily } from '../../src/shared/types';
import type { SessionMeta } from '../../src/shared/types';
import { dispatch } from '../../src/backend/dispatch';
import { nth } from '../support/elements';
import { useModelBackend } from './model-backend';

const ctx = useModelBackend();
const { call } = ctx;

async function conversation(): Promise<SessionMeta> {
  const session = await call<SessionMeta>('chat.create', {});
  ctx.model.enqueue({ text: 'First reply' }, { text: 'A label' });
  expect(await call('chat.send', { sessionId: session.id, text: 'hello' })).toEqual({ error: null });
  return session;
}

describe('branch methods', () => {
  it('refuses out-of-bounds points and texts before any handler runs', async () => {
    for (const [method, input] of [
      ['chat.edit', { sessionId: 'a', index: -1, text: 'x' }],
      ['chat.edit', { sessionId: 'a', index: 1.5, text: 'x' }],
      ['chat.edit', { sessionId: 'a', index: 1, text: '   ' }],
      ['chat.edit', { sessionId: 'a', index: 1, text: 'x'.repeat(200_001) }],
      ['chat.regenerate', { sessionId: 'a', index: 200_000_000 }],
      ['sessions.fork', { id: 'a', at: 0 }],
      ['chat.reply', { sessionId: 'a', text: 'no text here' }],
    ] as const) {
      expect(await dispatch(ctx.backend.handlers, method, input), `${method} ${JSON.stringify(input).slice(0, 60)}`).toMatchObject({
        ok: false,
        error: { code: 'bad_input' },
      });
    }
  });

  it('regenerate + reply make a sibling, listed as a branch point from both', async () => {
    const session = await conversation();
    const branch = await call<SessionMeta>('chat.regenerate', { sessionId: session.id, index: 2 });
    ctx.model.enqueue({ text: 'Second reply' });
    expect(await call('chat.reply', { sessionId: branch.id })).toEqual({ error: null });
    expect(ctx.model.requests.at(-1)!.body.messages.at(-1)).toMatchObject({ role: 'user' });
    const points = await call<BranchPoint[]>('sessions.branches', { id: branch.id });
    expect(points).toHaveLength(1);
    expect(points[0]).toMatchObject({ at: 2, current: 1 });
    expect(nth(points, 0).branches.map((b) => b.id)).toEqual([session.id, branch.id]);
    // A second reply to the same branch is refused: nothing waits for one.
    await expect(call('chat.reply', { sessionId: branch.id })).rejects.toThrow(/No message of yours is waiting/);
  });

  it('edit + reply, fork at a message, and the family', async () => {
    const session = await conversation();
    const edited = await call<SessionMeta>('chat.edit', { sessionId: session.id, index: 1, text: 'hello again' });
    ctx.model.enqueue({ text: 'Edited reply' });
    expect(await call('chat.reply', { sessionId: edited.id })).toEqual({ error: null });
    const fork = await call<SessionMeta>('sessions.fork', { id: session.id, at: 2 });
    expect(fork.message_count).toBe(2);
    const family = await call<SessionFamily>('sessions.family', { id: session.id });
    expect(family.parent).toBeNull();
    expect(family.children.map((s) => s.id)).toEqual([edited.id, fork.id]);
    const ofFork = await call<SessionFamily>('sessions.family', { id: fork.id });
    expect(ofFork.parent?.id).toBe(session.id);
    expect(ofFork.siblings.map((s) => s.id)).toEqual([edited.id]);
    await expect(call('chat.edit', { sessionId: session.id, index: 2, text: 'x' })).rejects.toThrow(/not one you sent/);
  });

  it('sessions.search finds a fork by the history it shares, not by what its parent wrote after the fork', async () => {
    const session = await conversation();
    const fork = await call<SessionMeta>('sessions.fork', { id: session.id, at: 2 });
    const found = async (query: string) => (await call<SessionSearchHit[]>('sessions.search', { query })).map((hit) => hit.id).sort();
    expect(await found('hello')).toEqual([session.id, fork.id].sort());
    expect(await found('First reply')).toEqual([session.id]);
    await call('sessions.archive', { id: session.id });
    expect(await found('hello')).toEqual([fork.id]);
  });
});
