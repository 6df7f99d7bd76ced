/** The Trash (docs/DESIGN.md#trash): a delete hides a session everywhere at once, a restore brings it back exactly, a purge deletes it. */
import { describe, expect, it } from 'vitest';
import { SessionLifecycle } from '../../src/core/session-lifecycle';
import { ChangeWatcher } from '../../src/core/store/change-watcher';
import { SessionStore } from '../../src/core/store/session-store';
import { nth } from '../support/elements';
import { assistant, openStore, system, user } from './helpers';

const DAY = 24 * 60 * 60 * 1000;

function seeded(store: SessionStore, word: string): string {
  const id = store.create({ title: `about ${word}`, messages: [system(), user(`tell me of ${word}`), assistant(`${word} is a word`)] }).id;
  store.updateSearchIndex();
  return id;
}

describe('the Trash', () => {
  it('a deleted session leaves every list, search and read at once, its rows kept; restore brings it back exactly', () => {
    const store = openStore();
    const lifecycle = new SessionLifecycle({ store });
    const id = seeded(store, 'zebras');
    const other = seeded(store, 'lions');
    store.setArchived(id, true);
    store.pin(id, { note: 'keep me' });
    const before = store.get(id);

    lifecycle.deleteSession(id);
    expect(store.list({ includeArchived: true }).map((s) => s.id)).toEqual([other]);
    expect(store.search('zebras', { includeArchived: true })).toEqual([]);
    expect(() => store.getMeta(id)).toThrow(`No session with id "${id}".`);
    expect(() => store.resolveId(id.slice(0, 8))).toThrow(`No session matches "${id.slice(0, 8)}".`);
    expect(store.db.prepare('SELECT count(*) AS n FROM transcript t JOIN sessions s ON s.pk = t.session_pk WHERE s.id = ?').get(id)).toEqual({ n: 3 });
    const trashed = nth(lifecycle.listTrash(), 0);
    expect(trashed).toMatchObject({ id, title: 'about zebras', archived: true });
    expect(Date.parse(trashed.purge_at) - Date.parse(trashed.deleted_at)).toBe(30 * DAY);

    lifecycle.restoreSession(id.slice(0, 8));
    expect(store.get(id)).toEqual(before);
    expect(store.getPins(id).map((p) => p.text)).toEqual(['keep me']);
    expect(store.search('zebras', { includeArchived: true }).map((h) => h.id)).toEqual([id]);
    expect(lifecycle.listTrash()).toEqual([]);
  });

  it('a trashed parent keeps its forks whole and found by their shared history; purge hands its rows to them', () => {
    const store = openStore();
    const lifecycle = new SessionLifecycle({ store });
    const parent = seeded(store, 'okapis');
    const fork = store.fork(parent, 2).id;
    const forkTranscript = store.getTranscript(fork);

    lifecycle.deleteSession(parent);
    expect(store.getTranscript(fork)).toEqual(forkTranscript);
    expect(store.search('okapis').map((h) => h.id)).toEqual([fork]);
    expect(store.family(fork).parent).toBeNull();

    lifecycle.purgeSession(parent);
    expect(store.db.prepare('SELECT count(*) AS n FROM sessions WHERE id = ?').get(parent)).toEqual({ n: 0 });
    expect(store.getTranscript(fork)).toEqual(forkTranscript);
    expect(store.search('okapis').map((h) => h.id)).toEqual([fork]);
    expect(() => lifecycle.restoreSession(parent)).toThrow(`No session in the Trash matches "${parent}".`);
  });

  it('purges what stayed past trashDays when a lifecycle starts, and nothing younger', () => {
    const store = openStore();
    const old = seeded(store, 'old');
    const young = seeded(store, 'young');
    store.trash(old, new Date(Date.now() - 8 * DAY));
    store.trash(young, new Date(Date.now() - 6 * DAY));

    const lifecycle = new SessionLifecycle({ store, trashDays: 7 });
    expect(lifecycle.listTrash().map((s) => s.id)).toEqual([young]);
    expect(store.db.prepare('SELECT id FROM sessions').pluck().all()).toEqual([young]);
  });

  it('another connection sees a trash as a deletion and a restore as the session back (the change log)', () => {
    const store = openStore();
    const id = seeded(store, 'tapirs');
    const other = SessionStore.open(store.dataDir);
    const watcher = new ChangeWatcher(other);
    try {
      store.trash(id);
      expect(watcher.poll()).toEqual([expect.objectContaining({ id, meta: null })]);
      store.restore(id);
      expect(watcher.poll()).toEqual([expect.objectContaining({ id, meta: expect.objectContaining({ id, title: 'about tapirs' }) })]);
    } finally {
      other.close();
    }
  });

  it('an unknown id changes nothing and says so in one line', () => {
    const store = openStore();
    const lifecycle = new SessionLifecycle({ store });
    const id = seeded(store, 'live');
    expect(() => lifecycle.restoreSession(id)).toThrow(`No session in the Trash matches "${id}".`);
    expect(() => lifecycle.purgeSession('nope')).toThrow('No session in the Trash matches "nope".');
    expect(store.list().map((s) => s.id)).toEqual([id]);
  });
});
