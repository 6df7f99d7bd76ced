/**
 * chat.pending: the approvals and questions a session waits on, listed again for a window
 * that reloaded and missed their events. A real backend (store, engine, handlers) talking
 * to the scripted model server, driven through the dispatcher both transports use.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BridgeEvent, PendingRequest } from '../../src/shared/contract';
import type { SessionMeta } from '../../src/shared/types';
import { dispatch } from '../../src/backend/dispatch';
import { nth } from '../support/elements';
import { useModelBackend } from './model-backend';

const ctx = useModelBackend();
const { call } = ctx;

/** The next event of this type the backend pushes to the windows. */
function nextEvent<T extends BridgeEvent['type']>(type: T): Promise<Extract<BridgeEvent, { type: T }>> {
  return new Promise((resolve) => {
    const off = ctx.backend.subscribe((event) => {
      if (event.type !== type) return;
      off();
      resolve(event as Extract<BridgeEvent, { type: T }>);
    });
  });
}

describe('chat.pending', () => {
  it('validates its input', async () => {
    for (const input of [{}, { sessionId: '' }, { sessionId: 5 }, { sessionId: 'a', extra: true }]) {
      expect(await dispatch(ctx.backend.handlers, 'chat.pending', input)).toMatchObject({
        ok: false,
        error: { code: 'bad_input', message: expect.stringMatching(/^Invalid input for chat\.pending: /) },
      });
    }
    expect(await dispatch(ctx.backend.handlers, 'chat.pending', { sessionId: 'no-such-session' })).toMatchObject({
      ok: false,
      error: { code: 'unknown_session' },
    });
  });

  it('lists the approval a turn waits on, and nothing once it is answered', async () => {
    const session = await call<SessionMeta>('chat.create', {});
    expect(await call('chat.pending', { sessionId: session.id })).toEqual([]);
    ctx.model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'out.txt', content: 'yes' } }] }, { text: 'Written.' }, { text: 'Writing' });

    const asked = nextEvent('approval');
    const turn = call<{ error: string | null }>('chat.send', { sessionId: session.id, text: 'write out.txt' });
    const approval = await asked;
    const pending = await call<PendingRequest[]>('chat.pending', { sessionId: session.id.slice(0, 8) });
    const { type: _type, sessionId: _sessionId, ...details } = approval;
    expect(pending).toEqual([{ kind: 'approval', ...details }]);
    expect(approval).toMatchObject({ tool: 'write_file', effect: 'write-files', offer: { kind: 'tool', tool: 'write_file' } });
    expect(approval.summary).toContain('out.txt');

    await call('chat.approve', { requestId: nth(pending, 0).requestId, answer: 'once' });
    expect(await turn).toEqual({ error: null });
    expect(fs.readFileSync(path.join(ctx.projectDir, 'out.txt'), 'utf8')).toBe('yes');
    expect(await call('chat.pending', { sessionId: session.id })).toEqual([]);
  });

  it('lists a question from ask_question, only for its own session', async () => {
    const session = await call<SessionMeta>('chat.create', {});
    const other = await call<SessionMeta>('chat.create', {});
    ctx.model.enqueue({ toolCalls: [{ name: 'ask_question', arguments: { question: 'Which colour?' } }] }, { text: 'Teal.' }, { text: 'Colours' });

    const asked = nextEvent('question');
    const turn = call('chat.send', { sessionId: session.id, text: 'pick a colour' });
    const question = await asked;
    expect(await call('chat.pending', { sessionId: session.id })).toEqual([{ kind: 'question', requestId: question.requestId, question: 'Which colour?' }]);
    expect(await call('chat.pending', { sessionId: other.id })).toEqual([]);

    await call('chat.answer', { requestId: question.requestId, answer: 'teal' });
    await turn;
    expect(nth(ctx.model.requests, 1).body.messages.at(-1).content).toContain('teal');
  });
});
