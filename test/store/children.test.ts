/** Sub-agents' sessions in the store (docs/DESIGN.md#sub-agents): linked, left out of lists, deleted, trashed and archived with their parent. */
import { describe, expect, it } from 'vitest';
import type { SessionStore } from '../../src/core/store/session-store';
import { assistant, openStore, system, tool, user } from './helpers';

function family(store: SessionStore): { parent: string; child: string; grandchild: string } {
  const parent = store.create({ title: 'the parent', messages: [system(), user('look around')] }).id;
  const child = store.create({ spawn: { parentId: parent, callId: 'call_1', agent: 'explore' }, messages: [system(), user('find the tests')] }).id;
  const grandchild = store.create({ spawn: { parentId: child, callId: 'call_9', agent: 'explore' }, messages: [user('deeper')] }).id;
  return { parent, child, grandchild };
}

describe('sub-agent sessions', () => {
  it('are linked to their parent and its call, start running, and stay out of the list unless asked for', () => {
    const store = openStore();
    const { parent, child, grandchild } = family(store);
    expect(store.childLink(child)).toEqual({ parent_id: parent, call_id: 'call_1', agent: 'explore', state: 'running' });
    expect(store.childLink(parent)).toBeNull();
    expect(store.children(parent).map((c) => [c.id, c.child.agent])).toEqual([[child, 'explore']]);
    expect(store.childOfCall(parent, 'call_1')?.id).toBe(child);
    expect(store.list().map((s) => s.id)).toEqual([parent]);
    expect(store.list({ includeChildren: true }).map((s) => s.id)).toEqual([grandchild, child, parent]);

    store.setChildState(child, 'done');
    expect(store.childLink(child)?.state).toBe('done');
  });

  it("counts a listed parent's live children and names the tools a child used, each once, in the order first used", () => {
    const store = openStore();
    const { parent, child } = family(store);
    store.appendMessage(
      child,
      assistant(null, [
        { id: 'c1', name: 'grep', args: '{}' },
        { id: 'c2', name: 'read_file', args: '{}' },
      ]),
    );
    store.appendMessage(child, assistant(null, [{ id: 'c3', name: 'grep', args: '{}' }]));
    expect(store.toolsUsed(child)).toEqual(['grep', 'read_file']);
    expect(store.toolsUsed(parent)).toEqual([]);
    expect(store.listPage({ limit: 10 }).children).toEqual({ [parent]: 1 });
    store.delete(child);
    expect(store.listPage({ limit: 10 }).children).toEqual({});
  });

  it('a child state change is in the change log other processes read', () => {
    const store = openStore();
    const { child } = family(store);
    const last = () => store.db.prepare('SELECT session_id, kind FROM session_changes ORDER BY seq DESC LIMIT 1').get();
    store.setChildState(child, 'stopped');
    expect(last()).toEqual({ session_id: child, kind: 'changed' });
  });

  it('delete, Trash and archive take the children with the parent; restore brings them back', () => {
    const store = openStore();
    const { parent, child, grandchild } = family(store);
    store.appendMessage(child, assistant('found them'));

    store.setArchived(parent, true);
    expect(store.list({ includeArchived: false, includeChildren: true })).toEqual([]);
    expect(store.getMeta(grandchild).archived).toBe(true);
    store.setArchived(parent, false);

    store.trash(parent);
    expect(() => store.getMeta(child)).toThrow('No session with id');
    expect(() => store.getMeta(grandchild)).toThrow('No session with id');
    store.restore(parent);
    expect(store.children(parent).map((c) => c.id)).toEqual([child]);
    expect(store.getMeta(grandchild).id).toBe(grandchild);

    store.delete(parent);
    const left = store.db.prepare('SELECT count(*) AS n FROM sessions').get();
    expect(left).toEqual({ n: 0 });
  });
});

describe('links that loop (a hostile or broken row)', () => {
  it("a session its own parent, or two each the other's, hang no reader: list, children, usage, delete", () => {
    const store = openStore();
    const self = store.create({ title: 'its own parent', messages: [user('me')] }).id;
    const a = store.create({ title: 'a', messages: [user('a')] }).id;
    const b = store.create({ title: 'b', spawn: { parentId: a, callId: 'call_b', agent: 'explore' }, messages: [user('b')] }).id;
    const link = store.db.prepare("UPDATE sessions SET spawned_by = ?, spawn_call_id = 'call_x', spawn_agent = 'explore', child_state = 'done' WHERE id = ?");
    link.run(self, self);
    link.run(b, a);

    expect(store.list()).toEqual([]);
    expect(store.children(self).map((c) => c.id)).toEqual([self]);
    expect(store.children(a).map((c) => c.id)).toEqual([b]);
    // The loop names a among its own descendants: its usage is its own, never counted again as a child's.
    store.recordUsage(a, 'chat', { prompt_tokens: 10, completion_tokens: 5, cost_usd: 0.01 });
    expect(store.getFamilyUsage(a)).toMatchObject({ own: { calls: 1 }, children: { calls: 0 }, total: { calls: 1 } });
    store.trash(a);
    store.restore(a);
    store.delete(a);
    store.delete(self);
    expect(store.list({ includeChildren: true, includeArchived: true })).toEqual([]);
  });
});

describe("a fork's children", () => {
  it('are the children its inherited history started, read along the chain, plus its own', () => {
    const store = openStore();
    const parent = store.create({ messages: [system(), user('look around')] }).id;
    store.appendMessage(parent, assistant(null, [{ id: 'call_1', name: 'run_subagent', args: '{}' }]));
    const first = store.create({ spawn: { parentId: parent, callId: 'call_1', agent: 'explore' }, messages: [user('first')] }).id;
    store.appendMessage(parent, tool('call_1', 'found it'));
    store.appendMessage(parent, assistant(null, [{ id: 'call_2', name: 'run_subagent', args: '{}' }]));
    const second = store.create({ spawn: { parentId: parent, callId: 'call_2', agent: 'explore' }, messages: [user('second')] }).id;
    store.appendMessage(parent, tool('call_2', 'found more'));
    const ids = (id: string) => store.children(id).map((c) => c.id);

    // After call_1's result (4 messages), before call_2's: the first child only.
    const fork = store.fork(parent, 4).id;
    expect(ids(fork)).toEqual([first]);
    expect(store.children(fork)[0]?.child.parent_id).toBe(parent);
    // Before any result: none; at the end: both.
    expect(ids(store.fork(parent, 3).id)).toEqual([]);
    expect(ids(store.fork(parent).id)).toEqual([first, second]);

    // A fork of the fork inherits through it, and a child the fork starts is its own.
    store.appendMessage(fork, assistant(null, [{ id: 'call_3', name: 'run_subagent', args: '{}' }]));
    const own = store.create({ spawn: { parentId: fork, callId: 'call_3', agent: 'explore' }, messages: [user('own')] }).id;
    expect(ids(fork)).toEqual([first, own]);
    store.appendMessage(fork, tool('call_3', 'own answer'));
    expect(ids(store.fork(fork).id)).toEqual([first, own]);

    // No link rows were copied: deleting the fork takes only its own child.
    store.delete(fork);
    expect(ids(parent)).toEqual([first, second]);
    expect(() => store.getMeta(own)).toThrow('No session with id');
  });
});
