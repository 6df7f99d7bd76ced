import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseToolArguments } from '../../src/core/tools/arguments';
import { MAX_RETRIES, readScratchpadTool, todoAppendTool, todoListTool, todoUpdateTool, writeScratchpadTool } from '../../src/core/tools/plan-tools';
import { SessionStore } from '../../src/core/store/session-store';
import { call, makeHarness, type Harness } from './support';

let h: Harness;
beforeEach(() => {
  h = makeHarness();
});
afterEach(() => h.cleanup());

describe('todo tools', () => {
  it('appends, lists and updates items, saving the plan through ctx.plan', async () => {
    expect(await call(todoListTool, {}, h.ctx)).toBe('The todo list is empty.');
    expect(await call(todoAppendTool, { text: 'write tests' }, h.ctx)).toBe('Added #1.\n#1 [pending] write tests');
    await call(todoAppendTool, { text: '  fix bug  ' }, h.ctx);
    expect(await call(todoUpdateTool, { id: 1, status: 'done' }, h.ctx)).toBe('#1 is now done.\n#1 [done] write tests\n#2 [pending] fix bug');
    expect(await call(todoListTool, {}, h.ctx)).toBe('#1 [done] write tests\n#2 [pending] fix bug');
    expect(h.savedPlans).toHaveLength(3);

    // Saved with the session: a fresh store on the same file reads it back.
    const reopened = SessionStore.open(h.dataDir);
    try {
      expect(reopened.getPlan(h.ctx.sessionId).todos).toEqual([
        { id: 1, text: 'write tests', status: 'done', retries: 0 },
        { id: 2, text: 'fix bug', status: 'pending', retries: 0 },
      ]);
    } finally {
      reopened.close();
    }
  });

  it('counts retries of a failed item and says to escalate after three', async () => {
    await call(todoAppendTool, { text: 'deploy' }, h.ctx);
    for (let retry = 1; retry <= MAX_RETRIES; retry++) {
      await call(todoUpdateTool, { id: 1, status: 'failed' }, h.ctx);
      const out = await call(todoUpdateTool, { id: 1, status: 'in_progress' }, h.ctx);
      expect(out).toContain(`Retry ${retry} of ${MAX_RETRIES}`);
      if (retry === MAX_RETRIES) expect(out).toContain('the last one allowed');
    }
    await call(todoUpdateTool, { id: 1, status: 'failed' }, h.ctx);
    await expect(call(todoUpdateTool, { id: 1, status: 'in_progress' }, h.ctx)).rejects.toThrow(
      '#1 has already been retried 3 times and failed again. Stop retrying it: tell the user what failed and ask how to proceed',
    );
    expect(h.ctx.plan.get().todos[0]).toMatchObject({ status: 'failed', retries: 3 });
    // Other moves are still allowed: the model may cancel it.
    expect(await call(todoUpdateTool, { id: 1, status: 'cancelled' }, h.ctx)).toContain('#1 is now cancelled.');
  });

  it('names the existing ids when an id is unknown', async () => {
    await expect(call(todoUpdateTool, { id: 4, status: 'done' }, h.ctx)).rejects.toThrow('No todo #4. The todo list is empty.');
    await call(todoAppendTool, { text: 'a' }, h.ctx);
    await expect(call(todoUpdateTool, { id: 4, status: 'done' }, h.ctx)).rejects.toThrow('No todo #4. Existing items: #1.');
  });

  it('validates statuses, ids and text', () => {
    const bad = (tool: typeof todoUpdateTool | typeof todoAppendTool, args: object) => parseToolArguments(tool, JSON.stringify(args));
    expect(bad(todoUpdateTool, { id: 1, status: 'finished' })).toMatchObject({ ok: false, error: expect.stringContaining('status:') });
    expect(bad(todoUpdateTool, { id: 1.5, status: 'done' })).toMatchObject({ ok: false, error: expect.stringContaining('id:') });
    expect(bad(todoAppendTool, { text: '   ' })).toMatchObject({ ok: false, error: expect.stringContaining('text:') });
    expect(bad(todoAppendTool, { text: 'x'.repeat(2001) })).toMatchObject({ ok: false, error: expect.stringContaining('text:') });
    expect(parseToolArguments(todoListTool, '{"all":true}')).toMatchObject({
      ok: false,
      error: expect.stringContaining('This tool takes no arguments: send {}.'),
    });
  });
});

describe('scratchpad tools', () => {
  it('writes and reads the scratchpad, keeping the todos', async () => {
    await call(todoAppendTool, { text: 'keep me' }, h.ctx);
    expect(await call(readScratchpadTool, {}, h.ctx)).toBe('The scratchpad is empty.');
    expect(await call(writeScratchpadTool, { content: 'Plan:\n1. read\n2. edit' }, h.ctx)).toBe('Scratchpad saved (21 characters).');
    expect(await call(readScratchpadTool, {}, h.ctx)).toBe('Plan:\n1. read\n2. edit');
    expect(h.store.getPlan(h.ctx.sessionId)).toEqual({
      todos: [{ id: 1, text: 'keep me', status: 'pending', retries: 0 }],
      scratchpad: 'Plan:\n1. read\n2. edit',
    });
  });

  it('bounds the scratchpad size', () => {
    expect(parseToolArguments(writeScratchpadTool, JSON.stringify({ content: 'x'.repeat(100_001) }))).toMatchObject({
      ok: false,
      error: expect.stringContaining('content:'),
    });
  });
});
