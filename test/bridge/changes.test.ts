/**
 * chat.changes / chat.revert and the secret-variable names in app.info: a real backend
 * (store, engine, handlers) whose tools really write into a temp project folder, driven by
 * the scripted model server through the dispatcher both transports use.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AppInfo, ChangedFiles, RevertedFiles } from '../../src/shared/contract';
import type { SessionMeta } from '../../src/shared/types';
import { dispatch } from '../../src/backend/dispatch';
import { useModelBackend } from './model-backend';

const ctx = useModelBackend({ mode: 'acceptEdits' });
const { call } = ctx;

/** A turn in which the model creates docs/new.md and edits the existing notes.txt. */
async function writeAndEdit(sessionId: string): Promise<void> {
  ctx.model.enqueue(
    { toolCalls: [{ name: 'write_file', arguments: { path: 'docs/new.md', content: '# New\n' } }] },
    { toolCalls: [{ name: 'edit_file', arguments: { path: 'notes.txt', old_string: 'old', new_string: 'new' } }] },
    { text: 'Done.' },
    { text: 'Notes' },
  );
  expect(await call('chat.send', { sessionId, text: 'write and edit' })).toEqual({ error: null });
}

describe('chat.changes and chat.revert', () => {
  it('validate their input', async () => {
    for (const method of ['chat.changes', 'chat.revert'] as const) {
      for (const input of [{}, { sessionId: '' }, { sessionId: 5 }, { sessionId: 'a', extra: true }, 'x']) {
        expect(await dispatch(ctx.backend.handlers, method, input)).toMatchObject({
          ok: false,
          error: { code: 'bad_input', message: expect.stringMatching(new RegExp(`^Invalid input for ${method.replace('.', '\\.')}: `)) },
        });
      }
      expect(await dispatch(ctx.backend.handlers, method, { sessionId: 'no-such-session' })).toMatchObject({
        ok: false,
        error: { code: 'unknown_session' },
      });
    }
  });

  it('list the files the tools wrote, relative to the project folder, and revert puts them back', async () => {
    fs.writeFileSync(path.join(ctx.projectDir, 'notes.txt'), 'the old text\n');
    const session = await call<SessionMeta>('chat.create', {});
    expect(await call<ChangedFiles>('chat.changes', { sessionId: session.id })).toEqual({ files: [] });

    await writeAndEdit(session.id);
    expect(fs.readFileSync(path.join(ctx.projectDir, 'notes.txt'), 'utf8')).toBe('the new text\n');
    expect(await call<ChangedFiles>('chat.changes', { sessionId: session.id.slice(0, 8) })).toEqual({
      files: [path.join('docs', 'new.md'), 'notes.txt'],
    });

    expect(await call<RevertedFiles>('chat.revert', { sessionId: session.id })).toEqual({
      reverted: [path.join('docs', 'new.md'), 'notes.txt'],
      leftAlone: [],
    });
    expect(fs.readFileSync(path.join(ctx.projectDir, 'notes.txt'), 'utf8')).toBe('the old text\n');
    expect(fs.existsSync(path.join(ctx.projectDir, 'docs'))).toBe(false);
    expect(await call<ChangedFiles>('chat.changes', { sessionId: session.id })).toEqual({ files: [] });
    expect(await call<RevertedFiles>('chat.revert', { sessionId: session.id })).toEqual({ reverted: [], leftAlone: [] });
  });

  it('refuses to revert while a turn is running, and changes nothing', async () => {
    fs.writeFileSync(path.join(ctx.projectDir, 'notes.txt'), 'the old text\n');
    const session = await call<SessionMeta>('chat.create', {});
    await writeAndEdit(session.id);

    let resume!: () => void;
    const held = new Promise<void>((resolve) => (resume = resolve));
    ctx.model.enqueue({ text: 'Still thinking about it.', pauseAfterChunks: 1, resume: held });
    const turn = call('chat.send', { sessionId: session.id, text: 'think' });
    await ctx.model.waitForRequests(ctx.model.requests.length + 1);

    expect(await dispatch(ctx.backend.handlers, 'chat.revert', { sessionId: session.id })).toEqual({
      ok: false,
      error: { code: 'busy', message: 'This session is still working; stop it or wait for the turn to end before reverting its changes.' },
    });
    expect(fs.readFileSync(path.join(ctx.projectDir, 'notes.txt'), 'utf8')).toBe('the new text\n');
    expect(fs.existsSync(path.join(ctx.projectDir, 'docs', 'new.md'))).toBe(true);

    resume();
    expect(await turn).toEqual({ error: null });
    expect((await call<RevertedFiles>('chat.revert', { sessionId: session.id })).reverted).toHaveLength(2);
  });
});

describe('app.info', () => {
  it('names the secret-looking environment variables of the engine, never their values', async () => {
    const name = 'LOOM_BRIDGE_TEST_API_TOKEN';
    process.env[name] = 'tok-value-never-shown';
    try {
      const info = await call<AppInfo>('app.info', {});
      expect(info.secretEnvNames).toContain(name);
      expect(JSON.stringify(info)).not.toContain('tok-value-never-shown');
    } finally {
      delete process.env[name];
    }
    expect((await call<AppInfo>('app.info', {})).secretEnvNames).not.toContain(name);
  });
});
