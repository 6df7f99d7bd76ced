/**
 * The change log (migration 11, docs/DESIGN.md#live-everywhere): every session created,
 * changed or deleted is logged in the same transaction, whichever connection wrote it, and a
 * watcher on another connection reads only what is newer than it has seen; the log stays
 * bounded, and a watcher that fell behind its trimmed start compares every session once.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChangeWatcher } from '../../src/core/store/change-watcher';
import type { SessionStore } from '../../src/core/store/session-store';
import { openStore, tempDir, user } from './helpers';

/** Two connections to one data folder: the backend's and another process's (`loom`, a sync). */
function twoConnections(): { backend: SessionStore; other: SessionStore } {
  const dataDir = path.join(tempDir(), 'data');
  return { backend: openStore(dataDir), other: openStore(dataDir) };
}

const logged = (store: SessionStore, after = 0) =>
  store.db.prepare('SELECT session_id, kind FROM session_changes WHERE seq > ? ORDER BY seq').all(after) as { session_id: string; kind: string }[];
const lastSeq = (store: SessionStore) => store.db.prepare('SELECT MAX(seq) FROM session_changes').pluck().get() as number;

/** `count` log rows for no session, as a busy other process would leave (the trim trigger fires as for any). */
function fillLog(store: SessionStore, count: number): void {
  store.db
    .prepare(
      `WITH RECURSIVE n (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
       INSERT INTO session_changes (session_id, kind) SELECT 'filler-' || i, 'changed' FROM n`,
    )
    .run(count);
}

describe('the session change log', () => {
  it("logs another connection's writes where this one reads them, in order", () => {
    const { backend, other } = twoConnections();
    const before = lastSeq(backend) ?? 0;
    const { id } = other.create({ title: 'Herons' });
    other.rename(id, 'Heron notes');
    other.appendMessage(id, user('How do herons fish?'));
    other.delete(id);
    expect(logged(backend, before)).toEqual([
      { session_id: id, kind: 'created' },
      { session_id: id, kind: 'changed' },
      { session_id: id, kind: 'changed' },
      { session_id: id, kind: 'deleted' },
    ]);
  });

  it("logs nothing for a change to a column no SessionMeta holds (a pull's sync note)", () => {
    const { backend } = twoConnections();
    const { id } = backend.create({ title: 'Notes' });
    const before = lastSeq(backend);
    backend.db.prepare('UPDATE sessions SET note = ? WHERE id = ?').run('from the hub', id);
    expect(logged(backend, before)).toEqual([]);
  });

  it("gives a watcher another connection's rename, archive, new message and delete, and its own writes never", () => {
    const { backend, other } = twoConnections();
    const mine = backend.create({ title: 'Mine' });
    const theirs = other.create({ title: 'Theirs' });
    const watcher = new ChangeWatcher(backend);

    backend.rename(mine.id, 'Still mine');
    other.rename(theirs.id, 'Renamed elsewhere');
    expect(watcher.poll().map((c) => [c.id, c.meta?.title])).toEqual([[theirs.id, 'Renamed elsewhere']]);

    other.setArchived(theirs.id, true);
    other.appendMessage(mine.id, user('Written elsewhere'));
    const changes = watcher.poll().map((c) => [c.id, c.meta?.archived, c.meta?.message_count]);
    expect(changes).toHaveLength(2);
    expect(changes).toEqual(
      expect.arrayContaining([
        [mine.id, false, mine.message_count + 1],
        [theirs.id, true, 0],
      ]),
    );
    expect(watcher.poll()).toEqual([]);

    other.delete(mine.id);
    expect(watcher.poll()).toEqual([{ id: mine.id, meta: null, before: expect.objectContaining({ title: 'Still mine' }) }]);
  });

  it('stays bounded: the newest 10,000 changes are kept, trimmed a thousand at a time', () => {
    const { other } = twoConnections();
    fillLog(other, 25_000);
    const count = other.db.prepare('SELECT count(*) FROM session_changes').pluck().get() as number;
    expect(count).toBeGreaterThanOrEqual(10_000);
    expect(count).toBeLessThan(11_000);
    expect(other.db.prepare('SELECT MIN(seq) FROM session_changes').pluck().get()).toBe(lastSeq(other) - count + 1);
  });

  it('a watcher that fell behind the trimmed start compares every session once, then reads the log again', () => {
    const { backend, other } = twoConnections();
    const { id } = other.create({ title: 'Herons' });
    const watcher = new ChangeWatcher(backend);
    other.rename(id, 'Lost in the log');
    fillLog(other, 12_000); // the rename's row is trimmed before the watcher polls
    expect(logged(backend).some((row) => row.session_id === id)).toBe(false);
    expect(watcher.poll().map((c) => [c.id, c.meta?.title])).toEqual([[id, 'Lost in the log']]);

    other.rename(id, 'Logged again');
    expect(watcher.poll().map((c) => [c.id, c.meta?.title])).toEqual([[id, 'Logged again']]);
  });
});
