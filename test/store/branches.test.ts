import { describe, expect, it } from 'vitest';
import { boundaryMessage } from '../../src/core/context/compactor';
import type { SessionStore } from '../../src/core/store/session-store';
import type { ChatMessage } from '../../src/shared/types';
import { nth } from '../support/elements';
import { assistant, conversation, openStore, system, user } from './helpers';

const rows = (store: SessionStore, table: string) => (store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

/** What the compactor hands the store: system, boundary, the context from the last user turn. */
function compact(store: SessionStore, id: string, summary: string): ChatMessage[] {
  const context = store.getContext(id);
  const cut = context.findLastIndex((m) => m.role === 'user');
  const messages = [nth(context, 0), boundaryMessage(summary), ...context.slice(cut)];
  store.recordCompaction(id, { messages, compaction: { at: '2026-01-01T00:00:00.000Z', before_tokens: 9, after_tokens: 3, summary } });
  return messages;
}

/** conversation() (5 messages) and two more turns: 9 messages. */
function longer(store: SessionStore): string {
  const { id } = store.create({ title: 'Original', messages: conversation() });
  for (const word of ['walrus', 'narwhal']) {
    store.appendMessage(id, user(`and the ${word}?`));
    store.appendMessage(id, assistant(`${word} done`));
  }
  return id;
}

describe('fork at a message', () => {
  it('shares the first N transcript messages without copying a row, and records its parent and fork point', () => {
    const store = openStore();
    const id = longer(store);
    const [transcriptRows, bodies] = [rows(store, 'transcript'), rows(store, 'messages')];
    const fork = store.fork(id, 7);
    expect(fork).toMatchObject({ parent_id: id, message_count: 7, title: 'Original · fork at 7', status: 'saved' });
    expect(rows(store, 'transcript')).toBe(transcriptRows);
    expect(rows(store, 'messages')).toBe(bodies);
    expect(store.db.prepare('SELECT fork_at FROM sessions WHERE id = ?').get(fork.id)).toEqual({ fork_at: 7 });
    expect(store.getTranscript(fork.id)).toEqual(store.getTranscript(id).slice(0, 7));
    expect(store.getContext(fork.id)).toEqual(store.getTranscript(id).slice(0, 7));
    store.appendMessage(fork.id, user('only in the fork'));
    expect(store.getTranscript(fork.id).slice(6)).toEqual([assistant('walrus done'), user('only in the fork')]);
    expect(store.getTranscript(id)).toHaveLength(9);
    expect(store.getTranscript(fork.id, 6, 1)).toEqual([assistant('walrus done')]);
  });

  it('refuses a point outside 1..length and changes nothing', () => {
    const store = openStore();
    const id = longer(store);
    for (const at of [0, 10, 2.5, -1]) expect(() => store.fork(id, at)).toThrow(/Cannot fork at message/);
    expect(store.list()).toHaveLength(1);
  });

  it('a fork of a fork reads through both, and at a point inside the grandparent points straight at it', () => {
    const store = openStore();
    const id = longer(store);
    const child = store.fork(id, 7).id;
    store.appendMessage(child, user('child turn'));
    const grandchild = store.fork(child, 8).id;
    const early = store.fork(child, 3).id;
    expect(store.getTranscript(grandchild)).toEqual([...store.getTranscript(id).slice(0, 7), user('child turn')]);
    const pk = (s: string) => (store.db.prepare('SELECT pk FROM sessions WHERE id = ?').get(s) as { pk: number }).pk;
    expect(store.db.prepare('SELECT fork_parent_pk AS parent FROM sessions WHERE id = ?').get(early)).toEqual({ parent: pk(id) });
    expect(store.getMeta(early).parent_id).toBe(child);
  });

  it('inherits a compaction recorded by its fork point, not one recorded after it', () => {
    const store = openStore();
    const id = longer(store);
    const compacted = compact(store, id, 'Fixed the parser and the walrus.');
    store.appendMessage(id, user('and the seal?'));
    const after = store.fork(id, 10).id;
    const before = store.fork(id, 7).id;
    expect(store.getContext(after)).toEqual([...compacted, user('and the seal?')]);
    expect(store.getCompactions(after)).toHaveLength(1);
    expect(store.getContext(before)).toEqual(store.getTranscript(id).slice(0, 7));
    expect(store.getCompactions(before)).toEqual([]);
  });

  it('deleting a parent never breaks a child: the child takes over the rows it reads, bodies stay shared', () => {
    const store = openStore();
    const id = longer(store);
    const child = store.fork(id, 7).id;
    const grandchild = store.fork(child).id;
    store.appendMessage(grandchild, user('grandchild turn'));
    const expected = { child: store.getContext(child), grandchild: store.getContext(grandchild) };
    store.delete(id);
    expect(store.getContext(child)).toEqual(expected.child);
    expect(store.getContext(grandchild)).toEqual(expected.grandchild);
    store.delete(child);
    expect(store.getContext(grandchild)).toEqual(expected.grandchild);
    expect(store.getTranscript(grandchild)).toHaveLength(8);
    expect(rows(store, 'transcript')).toBe(8);
    expect(rows(store, 'messages')).toBe(8);
    expect(store.search('walrus').map((h) => h.id)).toEqual([grandchild]);
    expect(store.db.pragma('foreign_key_check')).toEqual([]);
  });

  it("compacting a fork writes the fork only, and survives the parent's deletion; the parent's later compaction stays its own", () => {
    const store = openStore();
    const id = longer(store);
    const fork = store.fork(id).id;
    store.appendMessage(fork, user('fork question'));
    const compacted = compact(store, fork, 'The fork so far.');
    const parentContext = store.getContext(id);
    expect(parentContext).toEqual(store.getTranscript(id));
    compact(store, id, 'The parent so far.');
    expect(store.getContext(fork)).toEqual(compacted);
    store.delete(id);
    expect(store.getContext(fork)).toEqual(compacted);
    expect(store.getCompactions(fork)).toHaveLength(1);
  });

  it('search finds a shared message in every session holding it, only up to each fork point', () => {
    const store = openStore();
    const id = longer(store);
    const fork = store.fork(id, 7).id;
    const grandchild = store.fork(fork).id;
    store.appendMessage(fork, user('the walrus again'));
    const found = (word: string, includeArchived = false) =>
      store
        .search(word, { includeArchived })
        .map((h) => h.id)
        .sort();
    // The narwhal turn came after the fork point: it is the parent's only.
    expect(found('narwhal')).toEqual([id]);
    expect(found('walrus')).toEqual([id, fork, grandchild].sort());
    // The shared message is shown at its place in each transcript.
    const grandchildHit = store.search('walrus').find((h) => h.id === grandchild)!;
    expect(nth(store.getTranscript(grandchild), grandchildHit.message_index!).content).toContain('walrus');
    store.setArchived(id, true);
    expect(found('walrus')).toEqual([fork, grandchild].sort());
    expect(found('walrus', true)).toEqual([id, fork, grandchild].sort());
    expect(found('narwhal')).toEqual([]);
  });

  it("a fork of a fork made inside the parent's shared part finds only what it shares", () => {
    const store = openStore();
    const id = longer(store);
    const child = store.fork(id, 7).id;
    const early = store.fork(child, 5).id;
    expect(store.search('walrus').map((h) => h.id)).not.toContain(early);
    expect(store.search('parser').map((h) => h.id)).toContain(early);
  });

  it('a new system prompt in the fork replaces the shared one in its context only', () => {
    const store = openStore();
    const id = longer(store);
    const fork = store.fork(id, 5).id;
    store.setProject(fork, { cwd: '/elsewhere', systemPrompt: 'You are Loom, elsewhere.' });
    expect(store.getContext(fork)).toEqual([system('You are Loom, elsewhere.'), ...conversation().slice(1)]);
    expect(store.getContext(id)[0]).toEqual(system());
  });
});

describe('branches of a point (for edit-and-resend, regenerate and a version switcher)', () => {
  it('appendBranch forks under message N and appends in one go; branchesAt lists every branch there, from any of them', () => {
    const store = openStore();
    const id = longer(store);
    const edited = store.appendBranch(id, 5, user('and the seal?'));
    const regenerated = store.fork(id, 6).id;
    const again = store.appendBranch(edited.id, 5, user('and the otter?'));
    expect(store.getTranscript(edited.id)).toEqual([...conversation(), user('and the seal?')]);
    const ids = (list: { id: string }[]) => list.map((s) => s.id);
    expect(ids(store.branchesAt(id, 5))).toEqual([id, edited.id, again.id]);
    expect(ids(store.branchesAt(again.id, 5))).toEqual([id, edited.id, again.id]);
    expect(ids(store.branchesAt(id, 6))).toEqual([id, regenerated]);
    expect(store.getContext(again.id)).toEqual([...conversation(), user('and the otter?')]);
    expect(() => store.appendBranch(id, 99, user('x'))).toThrow(/Cannot fork at message 99/);
    expect(store.list()).toHaveLength(4);
  });
});
