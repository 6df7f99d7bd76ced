import { describe, expect, it } from 'vitest';
import type { SessionStore } from '../../src/core/store/session-store';
import { MIGRATIONS, latestVersion, readSchemaVersion } from '../../src/core/store/migrations';
import type { SessionPage } from '../../src/shared/types';
import { conversation, openStore, user } from './helpers';

/** The families a page lists, in order, each as its members' titles (newest first). */
function familiesOf(page: SessionPage): string[][] {
  const order: string[] = [];
  const members = new Map<string, string[]>();
  for (const s of page.sessions) {
    const family = page.families[s.id] ?? '';
    if (!members.has(family)) order.push(family);
    members.set(family, [...(members.get(family) ?? []), s.title ?? '']);
  }
  return order.map((family) => members.get(family) ?? []);
}

/** A root with `branches` forks of it (the last forked from the one before), each a message further on. */
function family(store: SessionStore, name: string, branches: number): string[] {
  const root = store.create({ title: name, messages: conversation(name) });
  const ids = [root.id];
  for (let i = 1; i <= branches; i++) {
    const fork = store.fork(ids.at(-1) ?? root.id, 2);
    store.rename(fork.id, `${name} · ${i}`);
    store.appendMessage(fork.id, user(`${name} branch ${i}`));
    ids.push(fork.id);
  }
  return ids;
}

describe('the sidebar pages by family', () => {
  it('lists a page of families, whole, by their newest member, and the next page after them', () => {
    const store = openStore();
    const a = family(store, 'a', 2);
    family(store, 'b', 0);
    family(store, 'c', 3);
    family(store, 'd', 1);
    // a's root takes a message: its family is the newest now, its root its newest member.
    store.appendMessage(a[0] ?? '', user('a again'));

    const first = store.listPage({ limit: 2 });
    expect(familiesOf(first)).toEqual([
      ['a', 'a · 2', 'a · 1'],
      ['d · 1', 'd'],
    ]);
    const second = store.listPage({ limit: 2, after: first.next ?? undefined });
    expect(familiesOf(second)).toEqual([['c · 3', 'c · 2', 'c · 1', 'c'], ['b']]);
    // A fork's family is its root's, whatever it was forked from.
    expect(new Set(second.sessions.filter((s) => s.title?.startsWith('c')).map((s) => second.families[s.id])).size).toBe(1);
    expect(second.next).toBeNull();
    expect(store.listPage({ limit: 4 }).next).toBeNull();
  });

  it('leaves out archived and trashed members, and counts a family by the members listed', () => {
    const store = openStore();
    const [root = '', one = '', two = ''] = family(store, 'a', 2);
    family(store, 'b', 0);
    store.setArchived(two, true);
    store.trash(one);
    expect(familiesOf(store.listPage({ limit: 10 }))).toEqual([['b'], ['a']]);
    expect(familiesOf(store.listPage({ limit: 10, includeArchived: true }))).toEqual([['b'], ['a · 2', 'a']]);
    // A family whose root is archived still lists its branches, folded together.
    store.setArchived(two, false);
    store.setArchived(root, true);
    expect(familiesOf(store.listPage({ limit: 10 }))).toEqual([['b'], ['a · 2']]);
  });

  it('lists a family with a pinned member on the first page, and never again', () => {
    const store = openStore();
    const [, one = ''] = family(store, 'a', 2);
    family(store, 'b', 0);
    family(store, 'c', 0);
    store.setPinned(one, true);
    const first = store.listPage({ limit: 1 });
    expect(familiesOf(first)).toEqual([['a · 1', 'a · 2', 'a'], ['c']]);
    expect(familiesOf(store.listPage({ limit: 1, after: first.next ?? undefined }))).toEqual([['b']]);
  });

  it('keeps to the project folder chosen', () => {
    const store = openStore();
    const [root = '', fork = ''] = family(store, 'a', 1);
    family(store, 'b', 0);
    store.setProject(root, { cwd: '/work/p', systemPrompt: 'You are Loom.' });
    expect(familiesOf(store.listPage({ limit: 10, project: '/work/p' }))).toEqual([['a']]);
    store.setProject(fork, { cwd: '/work/p', systemPrompt: 'You are Loom.' });
    expect(familiesOf(store.listPage({ limit: 10, project: '/work/p' }))).toEqual([['a · 1', 'a']]);
  });

  it("joins a branch given its parent later to the parent's family, and its own branches with it (a pull's order)", () => {
    const store = openStore();
    const [root = ''] = family(store, 'a', 0);
    const [pulled = '', below = ''] = family(store, 'p', 1);
    // As sync/apply.ts writes a pulled fork: the row first, its parent_id after.
    store.db.prepare('UPDATE sessions SET parent_id = ? WHERE id = ?').run(root, pulled);
    const { families } = store.listPage({ limit: 10 });
    expect([families[pulled], families[below]]).toEqual([root, root]);
  });

  it('finds the families of a database from before families (version 19)', () => {
    const store = openStore();
    const [root = '', one = '', two = ''] = family(store, 'a', 2);
    const [other = ''] = family(store, 'b', 0);
    store.db.exec(
      'DROP TRIGGER sessions_family_created; DROP TRIGGER sessions_family_reparented; DROP INDEX sessions_by_family; ' +
        'ALTER TABLE sessions DROP COLUMN family_id; UPDATE schema_version SET version = 19',
    );
    store.close();
    const migrated = openStore(store.dataDir);
    expect(readSchemaVersion(migrated.db)).toBe(latestVersion(MIGRATIONS));
    const { families } = migrated.listPage({ limit: 10 });
    expect([families[root], families[one], families[two], families[other]]).toEqual([root, root, root, other]);
  });
});
