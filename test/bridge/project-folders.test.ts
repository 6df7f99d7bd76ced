/**
 * Each session works in its own project folder, within one running app
 * (docs/DESIGN.md#the-project-folder): a real backend without a --project folder (the app
 * started anywhere), its model the scripted loopback server, driven through the dispatcher
 * both transports use. Files on disk and the store's rows say where the tools worked.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BridgeResult, MethodName, RecentFolder, SessionProject } from '../../src/shared/contract';
import type { SessionMeta, SessionPage } from '../../src/shared/types';
import { openBackend, type Backend } from '../../src/backend/backend';
import { dispatch } from '../../src/backend/dispatch';
import { JsonFileSettingsStore } from '../../src/backend/settings-store';
import { startScriptedServer, type ScriptedServer } from '../support/scripted-server';

let root: string;
let model: ScriptedServer;
let backend: Backend;
const folder = (name: string) => {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
};

beforeEach(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-folders-')));
  model = await startScriptedServer();
  const dataDir = path.join(root, 'data');
  backend = openBackend({
    dataDir,
    settingsStore: new JsonFileSettingsStore(dataDir),
    shell: 'browser',
    env: {},
    overrides: { baseUrl: model.baseUrl, model: 'gemma4', apiKey: '', mode: 'acceptEdits' },
  });
});

afterEach(async () => {
  await backend.close();
  await model.close();
  fs.rmSync(root, { recursive: true, force: true });
});

async function call<T>(method: MethodName, input: unknown): Promise<T> {
  const result = (await dispatch(backend.handlers, method, input)) as BridgeResult<T>;
  if (!result.ok) throw Object.assign(new Error(result.error.message), { code: result.error.code });
  return result.value;
}

/** One turn in which the model writes `file` (a relative path), then the listing summary. */
async function writeIn(sessionId: string, file: string, content: string): Promise<void> {
  model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: file, content } }] }, { text: 'Written.' }, { text: 'Notes' });
  expect(await call('chat.send', { sessionId, text: `write ${file}` })).toEqual({ error: null });
  // The listing summary is asked for after the turn: its reply is not left for the next one.
  await backend.engine.afterTurnSettled(sessionId);
}

describe('project folders in one app', () => {
  it('asks for a folder when none was ever chosen, never using the folder the app runs in', async () => {
    await expect(call('chat.create', {})).rejects.toMatchObject({ code: 'no_project', message: 'Choose a project folder for the new session first.' });
    expect(backend.store.list()).toEqual([]);
    expect(await call<RecentFolder[]>('projects.recent', {})).toEqual([]);
  });

  it("a tool call in session A writes in A's folder and in session B in B's, side by side", async () => {
    const a = folder('alpha');
    const b = folder('beta');
    const sessionA = await call<SessionMeta>('chat.create', { projectDir: a });
    const sessionB = await call<SessionMeta>('chat.create', { projectDir: b });
    await writeIn(sessionA.id, 'notes.txt', 'from A');
    await writeIn(sessionB.id, 'notes.txt', 'from B');
    expect(fs.readFileSync(path.join(a, 'notes.txt'), 'utf8')).toBe('from A');
    expect(fs.readFileSync(path.join(b, 'notes.txt'), 'utf8')).toBe('from B');
    expect(backend.store.getMeta(sessionA.id).project_dir).toBe(a);
    expect(backend.store.getMeta(sessionB.id).project_dir).toBe(b);
    // Each request's system prompt names its own session's folder.
    const prompts = model.requests.map((r) => r.body.messages[0].content as string).filter((c) => c.includes('The project folder is:'));
    expect(prompts.some((p) => p.includes(`The project folder is: ${a}`))).toBe(true);
    expect(prompts.some((p) => p.includes(`The project folder is: ${b}`))).toBe(true);

    // New sessions go to the most recent folder; the recent list is newest first.
    expect((await call<SessionMeta>('chat.create', {})).project_dir).toBe(b);
    expect(await call<RecentFolder[]>('projects.recent', {})).toEqual([
      { path: b, exists: true },
      { path: a, exists: true },
    ]);
  });

  it('checks a folder typed: missing, not a folder, relative; a link is kept by its real path', async () => {
    const file = path.join(folder('x'), 'file.txt');
    fs.writeFileSync(file, '');
    await expect(call('chat.create', { projectDir: path.join(root, 'nowhere') })).rejects.toThrow(`The folder ${path.join(root, 'nowhere')} does not exist.`);
    await expect(call('chat.create', { projectDir: file })).rejects.toThrow(`${file} is not a folder.`);
    await expect(call('chat.create', { projectDir: 'relative/dir' })).rejects.toThrow("Give the folder's full path (or one starting with ~/).");
    expect(backend.store.list()).toEqual([]);
    const real = folder('real');
    fs.symlinkSync(real, path.join(root, 'link'));
    expect((await call<SessionMeta>('chat.create', { projectDir: path.join(root, 'link') })).project_dir).toBe(real);
  });

  it('changes the folder before the first message, not after; a fork inherits it', async () => {
    const first = folder('first');
    const second = folder('second');
    const session = await call<SessionMeta>('chat.create', { projectDir: first });
    expect(await call<SessionProject>('sessions.project', { id: session.id })).toEqual({ dir: first, recorded: first, state: 'ready', changeable: true });
    await call('sessions.setProject', { id: session.id, projectDir: second });
    await writeIn(session.id, 'made.txt', 'here');
    expect(fs.existsSync(path.join(second, 'made.txt'))).toBe(true);
    expect(fs.existsSync(path.join(first, 'made.txt'))).toBe(false);
    expect(await call<SessionProject>('sessions.project', { id: session.id })).toMatchObject({ dir: second, changeable: false });
    await expect(call('sessions.setProject', { id: session.id, projectDir: first })).rejects.toMatchObject({ code: 'project_fixed' });
    expect(backend.store.getMeta(session.id).project_dir).toBe(second);
    const fork = await call<SessionMeta>('sessions.fork', { id: session.id });
    expect(fork.project_dir).toBe(second);
  });

  it('a session whose folder is gone runs no tool until another is chosen', async () => {
    const doomed = folder('doomed');
    const session = await call<SessionMeta>('chat.create', { projectDir: doomed });
    await writeIn(session.id, 'one.txt', '1');
    fs.rmSync(doomed, { recursive: true });
    const requests = model.requests.length;
    await expect(call('chat.send', { sessionId: session.id, text: 'go on' })).rejects.toMatchObject({ code: 'project_missing' });
    // Refused before any request: the model was not asked, so no tool could run anywhere.
    expect(model.requests).toHaveLength(requests);
    expect(await call<SessionProject>('sessions.project', { id: session.id })).toMatchObject({ dir: doomed, state: 'missing', changeable: true });
    expect(await call<RecentFolder[]>('projects.recent', {})).toEqual([{ path: doomed, exists: false }]);
    await expect(call('chat.create', {})).rejects.toMatchObject({ code: 'no_project' });

    const found = folder('found');
    await call('sessions.setProject', { id: session.id, projectDir: found });
    await writeIn(session.id, 'two.txt', '2');
    expect(fs.readFileSync(path.join(found, 'two.txt'), 'utf8')).toBe('2');
  });

  it('lists the projects, and pages and searches one of them', async () => {
    const a = folder('a');
    const b = folder('b');
    const inA = await call<SessionMeta>('chat.create', { projectDir: a });
    await call('sessions.rename', { id: inA.id, title: 'Heron in a' });
    for (let i = 0; i < 3; i++) await call('sessions.rename', { id: (await call<SessionMeta>('chat.create', { projectDir: b })).id, title: `Heron in b ${i}` });
    expect(await call('sessions.projects', {})).toEqual([
      { path: a, sessions: 1 },
      { path: b, sessions: 3 },
    ]);
    const page = await call<SessionPage>('sessions.list', { project: b, limit: 2 });
    expect(page.sessions.map((s) => s.project_dir)).toEqual([b, b]);
    const rest = await call<SessionPage>('sessions.list', { project: b, limit: 2, after: page.next });
    expect(rest.sessions.map((s) => s.title)).toEqual(['Heron in b 0']);
    expect(rest.next).toBeNull();
    const hits = await call<SessionMeta[]>('sessions.search', { query: 'heron', project: a });
    expect(hits.map((h) => h.id)).toEqual([inA.id]);
  });
});
