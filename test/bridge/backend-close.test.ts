/**
 * Closing a backend while work is in flight (a window quitting, a test timing out): the
 * stopped turn still ends in the store, then the database closes; closing twice is one
 * close, and a call that comes after gets one clear refusal.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BridgeEvent } from '../../src/shared/contract';
import type { SessionMeta } from '../../src/shared/types';
import { SessionStore } from '../../src/core/store/session-store';
import { dispatch } from '../../src/backend/dispatch';
import { nth } from '../support/elements';
import { useModelBackend } from './model-backend';

const ctx = useModelBackend();

function nextEvent(type: BridgeEvent['type']): Promise<void> {
  return new Promise((resolve) => {
    const off = ctx.backend.subscribe((event) => {
      if (event.type === type) {
        off();
        resolve();
      }
    });
  });
}

/** What reaches stderr and the process's unhandled rejections while `run` runs. */
async function collectComplaints(run: () => Promise<void>): Promise<string[]> {
  const complaints: string[] = [];
  const write = process.stderr.write;
  const onRejection = (reason: unknown) => complaints.push(`unhandled: ${String(reason)}`);
  process.stderr.write = (line: string) => (complaints.push(String(line)), true);
  process.on('unhandledRejection', onRejection);
  try {
    await run();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.stderr.write = write;
    process.off('unhandledRejection', onRejection);
  }
  return complaints;
}

describe('closing a backend with work in flight', () => {
  it('a reply streaming in is stopped and saved before the database closes', async () => {
    const session = await ctx.call<SessionMeta>('chat.create', {});
    ctx.model.enqueue({ text: 'A reply that never finishes arriving.', stallAfterChunks: 2 });
    const streaming = nextEvent('text');
    const turn = dispatch(ctx.backend.handlers, 'chat.send', { sessionId: session.id, text: 'Talk slowly' });
    await streaming;

    const complaints = await collectComplaints(async () => {
      const closing = ctx.backend.close();
      expect(ctx.backend.close()).toBe(closing); // one close, however often it is asked for
      await closing;
      expect(await turn).toEqual({ ok: true, value: { error: null } });
    });
    expect(complaints.join('')).toBe('');
    expect(ctx.backend.store.db.open).toBe(false);

    const reopened = SessionStore.open(ctx.backend.store.dataDir);
    try {
      expect(reopened.getMeta(session.id).status).toBe('saved');
      expect(JSON.stringify(reopened.getTranscript(session.id))).toContain('Talk slowly');
    } finally {
      reopened.close();
    }
  });

  it('an approval still waiting is answered "no" and nothing is written', async () => {
    const session = await ctx.call<SessionMeta>('chat.create', {});
    ctx.model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'never.txt', content: 'x' } }] }, { text: 'Fine.' });
    const asked = nextEvent('approval');
    const turn = dispatch(ctx.backend.handlers, 'chat.send', { sessionId: session.id, text: 'write never.txt' });
    await asked;
    const complaints = await collectComplaints(async () => {
      await ctx.backend.close();
      expect((await turn).ok).toBe(true);
    });
    expect(complaints.join('')).toBe('');
    expect(ctx.backend.store.db.open).toBe(false);
    expect(fs.existsSync(path.join(ctx.projectDir, 'never.txt'))).toBe(false);
  });

  it('the listing summary asked for after the first exchange is stopped and nothing complains', async () => {
    const session = await ctx.call<SessionMeta>('chat.create', {});
    ctx.model.enqueue({ text: 'Hello there.' }, { text: 'A summary that never finishes', stallAfterChunks: 1 });
    const turn = dispatch(ctx.backend.handlers, 'chat.send', { sessionId: session.id, text: 'Hi' });
    await ctx.model.waitForRequests(2);
    const complaints = await collectComplaints(async () => {
      await ctx.backend.close();
      expect((await turn).ok).toBe(true);
    });
    expect(complaints.join('')).toBe('');
  });

  it('a compaction waiting for its summary is stopped and nothing complains', async () => {
    const session = await ctx.call<SessionMeta>('chat.create', {});
    const long = ' words'.repeat(300);
    ctx.model.enqueue({ text: `One.${long}` }, { text: 'Summary' }, { text: `Two.${long}` }, { text: 'Never arrives', stallAfterChunks: 1 });
    await ctx.call('chat.send', { sessionId: session.id, text: 'first' });
    // The listing summary follows the turn in the background; a next message would cancel it.
    await ctx.backend.engine.afterTurnSettled(session.id);
    await ctx.call('chat.send', { sessionId: session.id, text: 'second' });
    const compaction = dispatch(ctx.backend.handlers, 'chat.compact', { sessionId: session.id });
    await ctx.model.waitForRequests(4);
    const complaints = await collectComplaints(async () => {
      await ctx.backend.close();
      await compaction;
    });
    expect(complaints.join('')).toBe('');
    expect(JSON.stringify(await compaction)).not.toMatch(/not open/);
  });

  it('a command still running is stopped and its end recorded before the database closes', async () => {
    const session = await ctx.call<SessionMeta>('chat.create', {});
    ctx.model.enqueue({ toolCalls: [{ name: 'run_bash', arguments: { command: 'touch started && sleep 5' } }] }, { text: 'Done.' });
    const asked = nextEvent('approval');
    const turn = dispatch(ctx.backend.handlers, 'chat.send', { sessionId: session.id, text: 'wait a bit' });
    await asked;
    const pending = nth(ctx.backend.engine.pendingRequests(session.id), 0);
    ctx.backend.engine.answerApproval(pending.requestId, 'once');
    await expect.poll(() => fs.existsSync(path.join(ctx.projectDir, 'started')), { timeout: 15_000 }).toBe(true);
    const complaints = await collectComplaints(async () => {
      await ctx.backend.close();
      expect(await turn).toEqual({ ok: true, value: { error: null } });
    });
    expect(complaints.join('')).toBe('');
    // The call has its result in the store, so a resumed session needs no recovery.
    const reopened = SessionStore.open(ctx.backend.store.dataDir);
    try {
      const results = reopened.getTranscript(session.id).filter((m) => m.role === 'tool');
      expect(results).toHaveLength(1);
      expect(nth(results, 0).content).toMatch(/stopped|interrupted|killed|exit/i);
    } finally {
      reopened.close();
    }
  });

  it('a call after closing began is refused with one clear message', async () => {
    const closed = ctx.backend.close();
    expect(await dispatch(ctx.backend.handlers, 'sessions.list', {})).toEqual({
      ok: false,
      error: { code: 'closing', message: 'Loom is shutting down; this request was not run.' },
    });
    await closed;
  });
});
