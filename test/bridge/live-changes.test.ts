/**
 * Live everywhere: what the `loom` command (another process, same data folder) changes
 * reaches the windows of a running backend as events carrying the changed session, within
 * a second, without a window asking (docs/DESIGN.md#live-everywhere).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { openBackend, type Backend } from '../../src/backend/backend';
import { JsonFileSettingsStore } from '../../src/backend/settings-store';
import { SessionStore } from '../../src/core/store/session-store';
import type { BridgeEvent } from '../../src/shared/contract';
import { buildLoom, makeTempDir, removeDir, runLoom } from '../cli/run-loom';

let root: string;
let dataDir: string;
let backend: Backend;
let events: { at: number; event: BridgeEvent }[];
const loom = (...args: string[]) => runLoom([...args, '--data-dir', dataDir]);

beforeAll(buildLoom, 120_000);
beforeEach(() => {
  root = makeTempDir('loom-live-');
  dataDir = path.join(root, 'data');
  fs.mkdirSync(path.join(root, 'project'));
  backend = openBackend({ dataDir, settingsStore: new JsonFileSettingsStore(dataDir), shell: 'browser', projectDir: path.join(root, 'project'), env: {} });
  events = [];
  backend.subscribe((event) => events.push({ at: Date.now(), event }));
});
afterEach(async () => {
  await backend.close();
  removeDir(root);
});

/** Resolves with the first event matching, and when it came; fails after 5 s (a loaded machine). */
async function eventWhere(match: (event: BridgeEvent) => boolean): Promise<{ at: number; event: BridgeEvent }> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const found = events.find((e) => match(e.event));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no such event; heard ${JSON.stringify(events.map((e) => e.event.type))}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('changes made by `loom` in the same data folder', () => {
  it('reach the windows as events with the changed session', async () => {
    const seeded = backend.store.create({ title: 'Herons', messages: [{ role: 'user', content: 'How do herons fish?' }] });

    const renamed = await loom('--rename', seeded.id, 'Heron notes');
    const exitedAt = Date.now();
    expect(renamed.code).toBe(0);
    const rename = await eventWhere((e) => e.type === 'session_changed' && e.meta.title === 'Heron notes');
    expect(rename.event).toEqual({ type: 'session_changed', sessionId: seeded.id, meta: backend.store.getMeta(seeded.id) });
    // Within a second of the command's exit (it usually comes before: the commit is earlier).
    expect(rename.at - exitedAt).toBeLessThan(1_000);

    expect((await loom('--archive', seeded.id)).code).toBe(0);
    await eventWhere((e) => e.type === 'session_changed' && e.sessionId === seeded.id && e.meta.archived);

    const exported = await loom('--export', seeded.id);
    const file = path.join(root, 'herons.json');
    fs.writeFileSync(file, exported.stdout);
    const imported = (await loom('--import', file)).stdout.trim();
    const added = await eventWhere((e) => e.type === 'session_changed' && e.sessionId === imported);
    expect(added.event).toMatchObject({ meta: { id: imported, title: 'Heron notes' } });

    expect((await loom('--delete', seeded.id, '--yes')).code).toBe(0);
    const deleted = await eventWhere((e) => e.type === 'session_deleted');
    expect(deleted.event).toMatchObject({ type: 'session_deleted', sessionId: seeded.id, meta: { title: 'Heron notes', archived: true } });
  });

  it('knows a session this backend created when another process deletes it', async () => {
    const mine = await backend.engine.createSession();
    backend.engine.close(mine.id);
    const run = await loom('--delete', mine.id, '--yes');
    expect(run.code).toBe(0);
    const deleted = await eventWhere((e) => e.type === 'session_deleted');
    expect(deleted.event).toMatchObject({ sessionId: mine.id, meta: { id: mine.id, status: 'saved' } });
  });
});

describe('changes another connection commits (the change log, not a compare of every session)', () => {
  /** Another process's connection to the backend's data folder, closed after the test. */
  function otherConnection(): SessionStore {
    const other = SessionStore.open(dataDir);
    onTestFinished(() => other.close());
    return other;
  }

  it('a rename and a new message reach the windows as events', async () => {
    const other = otherConnection();
    const { id } = backend.store.create({ title: 'Herons' });
    const renamedAt = Date.now();
    other.rename(id, 'Heron notes');
    const rename = await eventWhere((e) => e.type === 'session_changed' && e.sessionId === id && e.meta.title === 'Heron notes');
    // One poll interval (300 ms) and the poll, with room for a loaded machine.
    expect(rename.at - renamedAt).toBeLessThan(1_000);

    other.appendMessage(id, { role: 'user', content: 'How do herons fish?' });
    const grown = await eventWhere((e) => e.type === 'session_changed' && e.sessionId === id && e.meta.message_count === 1);
    expect(grown.event).toEqual({ type: 'session_changed', sessionId: id, meta: backend.store.getMeta(id) });
  });

  it("announces the backend's own changes once, not again when the log that holds them is read", async () => {
    const other = otherConnection();
    const own = backend.engine.rename(backend.store.create({ title: 'Mine' }).id, 'Still mine');
    const theirs = other.create({ title: 'Theirs' });
    // The poll that brings theirs reads the log past the backend's own rows too.
    await eventWhere((e) => e.type === 'session_changed' && e.sessionId === theirs.id);
    expect(events.map((e) => e.event)).toEqual([
      { type: 'session_changed', sessionId: own.id, meta: own },
      { type: 'session_changed', sessionId: theirs.id, meta: backend.store.getMeta(theirs.id) },
    ]);
  });
});
