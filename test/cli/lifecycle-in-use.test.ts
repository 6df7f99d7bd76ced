/**
 * The lifecycle commands on a session a window works in (docs/DESIGN.md#who-may-change-a-session):
 * the window holds the session's lease only while one of its turns runs. Meanwhile the
 * built `loom` in another process is refused with one line and exit 1, the store
 * unchanged, and so is `loom --resume`; what does not change the session (fork, export,
 * info) still works. Between turns the same commands succeed with the tab still open, and
 * the window's next turn goes on from what `loom` wrote.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { dispatch } from '../../src/backend/dispatch';
import { LISTING_SUMMARY_PROMPT } from '../../src/core/agent/listing-summary';
import type { ReceivedRequest, ScriptedReply } from '../support/scripted-server';
import type { SessionMeta } from '../../src/shared/types';
import { useModelBackend } from '../bridge/model-backend';
import { buildLoom, expectOneErrorLine, runLoom } from './run-loom';

const ctx = useModelBackend();
const loom = (...args: string[]) =>
  runLoom([...args, '--data-dir', ctx.backend.store.dataDir, '--base-url', ctx.model.baseUrl, '--model', 'gemma4'], { cwd: ctx.projectDir });

/** How the model answers a chat request now; a listing label request is answered with a label whatever this is. */
let reply: (request: ReceivedRequest) => ScriptedReply = () => ({ text: 'Herons stand still and strike fast.' });

/** Answers the window's and `loom`'s requests in whatever order they come. */
function answerWith(answer: typeof reply): void {
  reply = answer;
  const label = { text: 'Heron notes' };
  while (ctx.model.pending() < 8) {
    ctx.model.enqueue({ respond: (body, request) => (body.messages[0]?.content === LISTING_SUMMARY_PROMPT ? label : reply(request)) });
  }
}

/** The last user message of a chat request (its text, wrapped as Loom sends it). */
const lastUserText = (request: ReceivedRequest): string => request.body.messages.findLast((m: { role: string }) => m.role === 'user')?.content ?? '';

let releaseTurn: () => void = () => {};
afterEach(() => releaseTurn());

/** A window's session with a title, and a turn of the window in flight, paused in its reply; resolves once the reply is streaming. */
async function windowMidTurn(): Promise<{ session: SessionMeta; turn: Promise<unknown> }> {
  const created = await ctx.call<SessionMeta>('chat.create', {});
  ctx.backend.store.rename(created.id, 'Busy in a window');
  const resume = new Promise((resolve) => (releaseTurn = () => resolve(undefined)));
  answerWith(() => ({ text: 'Herons stand still and strike fast.', pauseAfterChunks: 2, resume }));
  const turn = dispatch(ctx.backend.handlers, 'chat.send', { sessionId: created.id, text: 'How do herons fish?' });
  await ctx.model.waitForRequests(1);
  return { session: ctx.backend.store.getMeta(created.id), turn };
}

beforeAll(buildLoom, 120_000);

describe('a session a window works in', () => {
  it.each([
    ['--rename', (id: string) => ['--rename', id, 'Renamed from the terminal']],
    ['--archive', (id: string) => ['--archive', id]],
    ['--delete', (id: string) => ['--delete', id, '--yes']],
  ])('%s during its turn is refused with one line, exit 1, nothing changed', async (_name, args) => {
    const { session } = await windowMidTurn();
    const run = await loom(...args(session.id.slice(0, 8)));
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(expectOneErrorLine(run)).toBe(`loom: Session ${session.id} is in use by pid ${process.pid}.`);
    expect(ctx.backend.store.getMeta(session.id)).toEqual(session);
  });

  it('refuses `loom --resume` during its turn, saying what to do instead', async () => {
    const { session } = await windowMidTurn();
    const run = await loom('--resume', session.id, '-p', 'And egrets?');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `loom: Session ${session.id} is in use by pid ${process.pid}. Wait until that loom ends, or work on a copy: \`loom --fork ${session.id}\``,
    );
    expect(ctx.backend.store.getMeta(session.id)).toEqual(session);
  });

  it('can still be forked, exported and shown during its turn', async () => {
    const { session } = await windowMidTurn();
    const fork = await loom('--fork', session.id);
    expect(fork.code).toBe(0);
    expect(ctx.backend.store.getMeta(fork.stdout.trim()).parent_id).toBe(session.id);
    expect((await loom('--export', session.id)).code).toBe(0);
    expect((await loom('--info', session.id)).code).toBe(0);
  });

  it('between turns, with its tab open, is resumed, renamed, archived and deleted from the terminal', async () => {
    const { session, turn } = await windowMidTurn();
    releaseTurn();
    expect(await turn).toMatchObject({ ok: true, value: { error: null } });
    expect(ctx.backend.engine.isOpen(session.id)).toBe(true);

    // A terminal turn between the window's: the window's next request carries it.
    answerWith((request) => ({ text: `Answered: ${lastUserText(request).includes('egrets') ? 'egrets' : 'other'}` }));
    const resumed = await loom('--resume', session.id, '-p', 'And egrets?');
    expect(resumed).toMatchObject({ code: 0 });
    expect(resumed.stdout).toContain('Answered: egrets');
    const before = ctx.model.requests.length;
    expect(await dispatch(ctx.backend.handlers, 'chat.send', { sessionId: session.id, text: 'And storks?' })).toMatchObject({
      ok: true,
      value: { error: null },
    });
    const windowRequest = ctx.model.requests.slice(before).find((r) => r.body.messages[0]?.content !== LISTING_SUMMARY_PROMPT);
    const said = JSON.stringify(windowRequest?.body.messages);
    expect(said).toContain('And egrets?');
    expect(said).toContain('Answered: egrets');
    expect(ctx.backend.store.getTranscript(session.id).map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant']);

    expect(await loom('--rename', session.id, 'Free now')).toMatchObject({ code: 0, stderr: '' });
    expect(await loom('--archive', session.id)).toMatchObject({ code: 0, stderr: '' });
    expect(ctx.backend.store.getMeta(session.id)).toMatchObject({ title: 'Free now', archived: true });
    expect(await loom('--delete', session.id, '--yes')).toMatchObject({ code: 0, stderr: '' });
    expect(ctx.backend.store.list({ includeArchived: true })).toEqual([]);
    // The window's engine hears of it and ends its work there: nothing of it is written again.
    await vi.waitFor(() => expect(ctx.backend.engine.isOpen(session.id)).toBe(false), { timeout: 5_000 });
  });

  it('gives the window the same refusal, word for word, when the terminal holds the session', async () => {
    // The roles swapped: `loom -p` would hold the lease during its turn; here a second store in this test does.
    const session = await ctx.call<SessionMeta>('chat.create', {});
    const { SessionStore } = await import('../../src/core/store/session-store');
    const terminal = SessionStore.open(ctx.backend.store.dataDir);
    const lease = terminal.acquireLease(session.id, 'loom-terminal');
    try {
      const before = ctx.backend.store.getMeta(session.id);
      for (const [method, input] of [
        ['sessions.rename', { id: session.id, title: 'From the window' }],
        ['sessions.archive', { id: session.id }],
        ['sessions.delete', { id: session.id }],
        ['chat.send', { sessionId: session.id, text: 'Hello?' }],
      ] as const) {
        expect(await dispatch(ctx.backend.handlers, method, input)).toEqual({
          ok: false,
          error: { code: 'session_in_use', message: `Session ${session.id} is in use by pid ${process.pid}.` },
        });
      }
      // Neither renamed, archived, deleted nor sent to (the window's Archive and Delete ended its own work on it first).
      expect(ctx.backend.store.getMeta(session.id)).toMatchObject({ title: before.title, archived: false, message_count: before.message_count });
      expect(ctx.model.requests).toEqual([]);
    } finally {
      lease.release();
      terminal.close();
    }
  });
});
