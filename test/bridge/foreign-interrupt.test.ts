/**
 * A terminal `loom` killed mid-tool while a window has the same session open (leases are held
 * per turn, docs/DESIGN.md#who-may-change-a-session): its call was written, its result never
 * was. The window's next turn must not send that call unanswered (the model server would
 * refuse the request): it is closed as interrupted first, not run again unasked.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dispatch } from '../../src/backend/dispatch';
import { LISTING_SUMMARY_PROMPT } from '../../src/core/agent/listing-summary';
import { INTERRUPTED_RESULT } from '../../src/core/agent/recovery';
import { SessionStore } from '../../src/core/store/session-store';
import type { SessionMeta } from '../../src/shared/types';
import { useModelBackend } from './model-backend';

const ctx = useModelBackend();

/** What the model answers a chat request now; a listing label request (made after a turn, or not) gets a label. */
let replyText = '';
function answer(text: string): void {
  replyText = text;
  while (ctx.model.pending() < 4)
    ctx.model.enqueue({ respond: (body) => ({ text: body.messages[0]?.content === LISTING_SUMMARY_PROMPT ? 'Label' : replyText }) });
}

describe("a call another process left without a result, in a window's open session", () => {
  it('is closed as interrupted before the next turn asks the model, and that turn is answered', async () => {
    answer('First answer.');
    const session = await ctx.call<SessionMeta>('chat.create', {});
    await dispatch(ctx.backend.handlers, 'chat.send', { sessionId: session.id, text: 'Hello' });

    // The terminal's loom, killed while its write_file ran: the call is in the store, no result.
    const terminal = SessionStore.open(ctx.backend.store.dataDir);
    terminal.appendMessage(session.id, { role: 'user', content: 'Write the notes' });
    terminal.appendMessage(session.id, {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'killed-1', type: 'function', function: { name: 'write_file', arguments: '{"path":"notes.md","content":"x"}' } }],
    });
    terminal.close();

    answer('Second answer.');
    const before = ctx.model.requests.length;
    await dispatch(ctx.backend.handlers, 'chat.send', { sessionId: session.id, text: 'Go on' });
    const request = ctx.model.requests.slice(before).find((r) => r.body.messages[0]?.content !== LISTING_SUMMARY_PROMPT);
    const messages = request?.body.messages as Array<{ role: string; tool_call_id?: string; content: string }>;
    const result = messages.find((m) => m.role === 'tool' && m.tool_call_id === 'killed-1');
    expect(result?.content).toBe(INTERRUPTED_RESULT);
    expect(ctx.backend.store.getTranscript(session.id).at(-1)).toEqual({ role: 'assistant', content: 'Second answer.' });
    // Not run again: no file was written.
    expect(fs.existsSync(path.join(ctx.projectDir, 'notes.md'))).toBe(false);
  });
});
