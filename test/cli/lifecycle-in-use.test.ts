/**
 * The lifecycle commands on a session a window is working in (docs/DESIGN.md#who-may-change-a-session): a running backend holds the session's lease, and the built `loom`
 * in another process is refused with one line and exit 1, the store unchanged. What does
 * not change the session (fork, export, info) still works; once the window lets the
 * session go, the same commands succeed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openBackend, type Backend } from '../../src/backend/backend';
import { dispatch } from '../../src/backend/dispatch';
import { JsonFileSettingsStore } from '../../src/backend/settings-store';
import type { SessionMeta } from '../../src/shared/types';
import { buildLoom, expectOneErrorLine, makeTempDir, removeDir, runLoom } from './run-loom';

let root: string;
let dataDir: string;
let backend: Backend;
let session: SessionMeta;
const loom = (...args: string[]) => runLoom([...args, '--data-dir', dataDir]);

beforeAll(buildLoom, 120_000);
beforeEach(async () => {
  root = makeTempDir('loom-in-use-');
  dataDir = path.join(root, 'data');
  fs.mkdirSync(path.join(root, 'project'));
  backend = openBackend({ dataDir, settingsStore: new JsonFileSettingsStore(dataDir), shell: 'browser', projectDir: path.join(root, 'project'), env: {} });
  // A window's new session: the backend works in it, holding its lease.
  const created = await dispatch(backend.handlers, 'chat.create', {});
  if (!created.ok) throw new Error(created.error.message);
  session = created.value as SessionMeta;
  backend.store.rename(session.id, 'Busy in a window');
  session = backend.store.getMeta(session.id);
});
afterEach(async () => {
  await backend.close();
  removeDir(root);
});

describe('a session a running window works in', () => {
  it.each([
    ['--rename', (id: string) => ['--rename', id, 'Renamed from the terminal']],
    ['--archive', (id: string) => ['--archive', id]],
    ['--delete', (id: string) => ['--delete', id, '--yes']],
  ])('%s is refused with one line, exit 1, nothing changed', async (_name, args) => {
    const run = await loom(...args(session.id.slice(0, 8)));
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(expectOneErrorLine(run)).toBe(`loom: Session ${session.id} is in use by pid ${process.pid}.`);
    expect(backend.store.getMeta(session.id)).toEqual(session);
  });

  it('can still be forked, exported and shown', async () => {
    const fork = await loom('--fork', session.id);
    expect(fork.code).toBe(0);
    expect(backend.store.getMeta(fork.stdout.trim()).parent_id).toBe(session.id);
    expect((await loom('--export', session.id)).code).toBe(0);
    expect((await loom('--info', session.id)).code).toBe(0);
  });

  it('is renamed, archived and deleted from the terminal once the window lets it go', async () => {
    backend.engine.close(session.id);
    expect(await loom('--rename', session.id, 'Free now')).toMatchObject({ code: 0, stderr: '' });
    expect(await loom('--archive', session.id)).toMatchObject({ code: 0, stderr: '' });
    expect(backend.store.getMeta(session.id)).toMatchObject({ title: 'Free now', archived: true });
    expect(await loom('--delete', session.id, '--yes')).toMatchObject({ code: 0, stderr: '' });
    expect(backend.store.list({ includeArchived: true })).toEqual([]);
  });

  it('gives the window the same refusal, word for word, when the terminal holds the session', async () => {
    // The roles swapped: `loom -p` would hold the lease; here a second store in this test does.
    backend.engine.close(session.id);
    const { SessionStore } = await import('../../src/core/store/session-store');
    const terminal = SessionStore.open(dataDir);
    const lease = terminal.acquireLease(session.id, 'loom-terminal');
    try {
      const before = backend.store.getMeta(session.id);
      for (const [method, input] of [
        ['sessions.rename', { id: session.id, title: 'From the window' }],
        ['sessions.archive', { id: session.id }],
        ['sessions.delete', { id: session.id }],
      ] as const) {
        expect(await dispatch(backend.handlers, method, input)).toEqual({
          ok: false,
          error: { code: 'session_in_use', message: `Session ${session.id} is in use by pid ${process.pid}.` },
        });
      }
      expect(backend.store.getMeta(session.id)).toEqual(before);
    } finally {
      lease.release();
      terminal.close();
    }
  });
});
