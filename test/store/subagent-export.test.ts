/** A parent's JSON export carries its sub-agents; import recreates them linked (docs/DESIGN.md#export-version-3). */
import { describe, expect, it } from 'vitest';
import { MAX_EXPORTED_CHILDREN, parseExport } from '../../src/core/store/export-schema';
import type { SessionStore } from '../../src/core/store/session-store';
import { assistant, openStore, system, tool, user } from './helpers';

const spawn = (id: string, task: string) => ({ id, name: 'run_subagent', args: JSON.stringify({ agent: 'explore', task }) });

/** A parent whose one reply started two sub-agents, both answered. */
function parentWithTwoChildren(store: SessionStore): { parent: string; children: string[] } {
  const parent = store.create({ title: 'the parent', messages: [system(), user('look around')] }).id;
  store.appendMessage(parent, assistant(null, [spawn('call_a', 'find the parser'), spawn('call_b', 'find the tests')]));
  const children = ['call_a', 'call_b'].map((callId, i) => {
    const child = store.create({
      title: `explore: task ${i}`,
      spawn: { parentId: parent, callId, agent: 'explore' },
      messages: [system(), user(`task ${i}`)],
    }).id;
    store.appendMessage(child, assistant(`found ${i}`));
    store.setChildState(child, 'done');
    return child;
  });
  store.appendMessage(parent, tool('call_a', 'found 0'));
  store.appendMessage(parent, tool('call_b', 'found 1'));
  store.appendMessage(parent, assistant('Both found.'));
  return { parent, children };
}

async function exportDoc(store: SessionStore, id: string) {
  return JSON.parse(await store.exportSession(id));
}

describe('export and import of a parent with sub-agents', () => {
  it('carries each child with its link, and import recreates the children linked to the new parent', async () => {
    const store = openStore();
    const { parent } = parentWithTwoChildren(store);
    const doc = await exportDoc(store, parent);
    expect(doc.children.map((c: { call_id: string; agent: string; state: string }) => [c.call_id, c.agent, c.state])).toEqual([
      ['call_a', 'explore', 'done'],
      ['call_b', 'explore', 'done'],
    ]);

    const other = openStore();
    const imported = other.importSession(parseExport(JSON.stringify(doc)));
    expect(imported.unlinked).toEqual([]);
    const children = other.children(imported.meta.id);
    expect(children.map((c) => c.child)).toEqual([
      { parent_id: imported.meta.id, call_id: 'call_a', agent: 'explore', state: 'done' },
      { parent_id: imported.meta.id, call_id: 'call_b', agent: 'explore', state: 'done' },
    ]);
    expect(children.map((c) => other.getTranscript(c.id).at(-1))).toEqual([assistant('found 0'), assistant('found 1')]);
    // Still children: left out of the list, deleted with the parent.
    expect(other.list().map((s) => s.id)).toEqual([imported.meta.id]);
    other.delete(imported.meta.id);
    expect(other.db.prepare('SELECT count(*) AS n FROM sessions').get()).toEqual({ n: 0 });
  });

  it("a fork's export carries the children its history started, and imports them linked", async () => {
    const store = openStore();
    const { parent } = parentWithTwoChildren(store);
    const fork = store.fork(parent, 4).id;
    const other = openStore();
    const { meta } = other.importSession(parseExport(await store.exportSession(fork)));
    expect(other.children(meta.id).map((c) => [c.child.parent_id, c.child.call_id])).toEqual([[meta.id, 'call_a']]);
  });

  it('a session without sub-agents exports without a children key', async () => {
    const store = openStore();
    const { id } = store.create({ messages: [system(), user('hi'), assistant('hello')] });
    expect(Object.keys(await exportDoc(store, id))).toEqual(['format', 'version', 'exported_at', 'session']);
  });

  it('a running child imports as interrupted: nothing in the new store runs it', async () => {
    const store = openStore();
    const { parent, children } = parentWithTwoChildren(store);
    store.setChildState(children[0] ?? '', 'running');
    const other = openStore();
    const { meta } = other.importSession(parseExport(await store.exportSession(parent)));
    expect(other.children(meta.id).map((c) => c.child.state)).toEqual(['interrupted', 'done']);
  });

  it('a link to a call the parent never made is dropped: that child imports as a session of its own', async () => {
    const store = openStore();
    const { parent } = parentWithTwoChildren(store);
    const doc = await exportDoc(store, parent);
    doc.children[1].call_id = 'call_elsewhere';
    const other = openStore();
    const imported = other.importSession(parseExport(JSON.stringify(doc)));
    expect(other.children(imported.meta.id).map((c) => c.child.call_id)).toEqual(['call_a']);
    expect(imported.unlinked.map((s) => s.title)).toEqual(['explore: task 1']);
    expect(other.childLink(imported.unlinked[0]?.id ?? '')).toBeNull();
  });

  it('refuses a child with children of its own, or more children than the bound, with one message and nothing written', async () => {
    const store = openStore();
    const { parent } = parentWithTwoChildren(store);
    const doc = await exportDoc(store, parent);
    const nested = { ...doc, children: [{ ...doc.children[0], children: [doc.children[1]] }] };
    expect(() => parseExport(JSON.stringify(nested))).toThrow(
      "Not a valid Loom session export: children.0: a sub-agent's own sub-agents are not imported (a sub-agent starts none).",
    );
    const many = { ...doc, children: Array.from({ length: 10_000 }, () => doc.children[0]) };
    expect(() => parseExport(JSON.stringify(many))).toThrow(
      `Not a valid Loom session export: children: 10000 sub-agent sessions, more than the ${MAX_EXPORTED_CHILDREN} an import takes.`,
    );
    const badChild = { ...doc, children: [{ ...doc.children[0], session: { ...doc.children[0].session, status: 'hacked' } }] };
    expect(() => parseExport(JSON.stringify(badChild))).toThrow(/^Not a valid Loom session export: children\.0\.session\.status/);
    expect(store.list({ includeChildren: true })).toHaveLength(3);
  });
});
