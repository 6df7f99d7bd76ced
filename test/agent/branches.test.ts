/**
 * The UI's branches through the engine (docs/DESIGN.md#branches-in-the-ui): edit and resend,
 * regenerate, reply, branch points and family. Checked on the store's rows (a branch copies
 * no transcript row) and on the requests the model receives.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { nth } from '../support/elements';
import { SUMMARY_TEXT, isSummaryRequest, lastMessage, makeAgentHarness, type AgentHarness } from './harness';

let h: AgentHarness;
afterEach(async () => {
  await h?.cleanup();
});

/** Transcript rows each session owns, by session id. */
function ownRows(): Record<string, number> {
  const rows = h.store.db.prepare('SELECT s.id AS id, COUNT(t.seq) AS n FROM sessions s LEFT JOIN transcript t ON t.session_pk = s.pk GROUP BY s.pk').all() as {
    id: string;
    n: number;
  }[];
  return Object.fromEntries(rows.map((r) => [r.id, r.n]));
}

function chatBodies(): any[] {
  return h.bodies().filter((body) => !isSummaryRequest(body));
}

const texts = (id: string) => h.store.getTranscript(id).map((m) => m.content);

describe('branches', () => {
  it('regenerate forks after the user message and asks again with a request ending with it', async () => {
    h = await makeAgentHarness();
    h.script({ text: 'First answer' });
    await h.send('hello');
    const before = ownRows();
    expect(before[h.sessionId]).toBe(3); // system, user, reply

    const branch = h.engine.regenerate(h.sessionId, 2);
    expect(branch.parent_id).toBe(h.sessionId);
    expect(branch.message_count).toBe(2);
    expect(ownRows()[branch.id]).toBe(0); // nothing copied

    h.server.enqueue({ text: 'Second answer' });
    expect(await h.engine.reply(branch.id)).toEqual({ error: null });
    const request = chatBodies().at(-1);
    expect(lastMessage(request).role).toBe('user');
    expect(lastMessage(request).content).toContain('hello');
    expect(request.messages.filter((m: any) => m.role === 'user')).toHaveLength(1);
    expect(request.messages.map((m: any) => m.role)).toEqual(['system', 'user']);

    expect(ownRows()[branch.id]).toBe(1); // only the new reply
    expect(ownRows()[h.sessionId]).toBe(3);
    expect(texts(h.sessionId).at(-1)).toBe('First answer');
    expect(texts(branch.id).at(-1)).toBe('Second answer');

    const fromBranch = h.engine.branches(branch.id);
    expect(fromBranch).toHaveLength(1);
    expect(nth(fromBranch, 0).at).toBe(2);
    expect(nth(fromBranch, 0).branches.map((b) => b.id)).toEqual([h.sessionId, branch.id]);
    expect(nth(fromBranch, 0).current).toBe(1);
    expect(h.engine.branches(h.sessionId)[0]).toMatchObject({ at: 2, current: 0 });
  });

  it('edit makes a branch with the edited text once, and the old branch stays as it was', async () => {
    h = await makeAgentHarness();
    h.script({ text: 'A1' });
    await h.send('first');
    h.server.enqueue({ text: 'A2' });
    await h.send('second');
    expect(texts(h.sessionId)).toHaveLength(5);
    const rowsBefore = Object.values(ownRows()).reduce((a, b) => a + b, 0);

    const branch = await h.engine.edit(h.sessionId, 3, 'second, edited');
    expect(branch.message_count).toBe(4);
    expect(ownRows()[branch.id]).toBe(1); // the edited message only
    h.server.enqueue({ text: 'A2 edited' });
    expect(await h.engine.reply(branch.id)).toEqual({ error: null });

    const request = chatBodies().at(-1);
    const serialized = JSON.stringify(request.messages);
    expect(serialized.split('second, edited')).toHaveLength(2); // exactly once
    expect(serialized).not.toContain('<user_input>\\nsecond\\n');
    expect(lastMessage(request)).toMatchObject({ role: 'user' });
    expect(lastMessage(request).content).toContain('second, edited');
    expect(request.messages.map((m: any) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);

    // Two new rows in all (the edited message and its reply): nothing was copied.
    expect(Object.values(ownRows()).reduce((a, b) => a + b, 0)).toBe(rowsBefore + 2);
    expect(texts(h.sessionId).at(-1)).toBe('A2');
    expect(texts(branch.id).at(-1)).toBe('A2 edited');
    expect(h.engine.branches(branch.id)).toEqual([expect.objectContaining({ at: 3, current: 1 })]);
    expect(nth(h.engine.branches(branch.id), 0).branches.map((b) => b.id)).toEqual([h.sessionId, branch.id]);
  });

  it('three replies to one message are three versions, the same list from each', async () => {
    h = await makeAgentHarness();
    h.script({ text: 'one' });
    await h.send('hi');
    const second = h.engine.regenerate(h.sessionId, 2);
    h.server.enqueue({ text: 'two' });
    await h.engine.reply(second.id);
    // Regenerating from the second branch forks the same point: a third sibling, not a child chain.
    const third = h.engine.regenerate(second.id, 2);
    h.server.enqueue({ text: 'three' });
    await h.engine.reply(third.id);
    for (const [id, current] of [
      [h.sessionId, 0],
      [second.id, 1],
      [third.id, 2],
    ] as const) {
      const point = nth(h.engine.branches(id), 0);
      expect(point.branches.map((b) => b.id)).toEqual([h.sessionId, second.id, third.id]);
      expect(point.current).toBe(current);
    }
    // An empty fork from here (nothing of its own yet) is not a version.
    h.engine.fork(h.sessionId, 2);
    expect(nth(h.engine.branches(h.sessionId), 0).branches).toHaveLength(3);
  });

  it('branch points along a chain of forks: each level, and which version this session follows', async () => {
    h = await makeAgentHarness();
    const say = (role: 'user' | 'assistant', content: string) => ({ role, content }) as const;
    const root = h.store.create({
      messages: [
        { role: 'system', content: 'S' },
        say('user', 'u1'),
        say('assistant', 'a1'),
        say('user', 'u2'),
        say('assistant', 'a2'),
        say('user', 'u3'),
        say('assistant', 'a3'),
      ],
    });
    const b = h.store.appendBranch(root.id, 3, say('user', 'u2 edited'));
    h.store.appendMessage(b.id, say('assistant', 'a2 again'));
    h.store.appendMessage(b.id, say('user', 'u3 in b'));
    h.store.appendMessage(b.id, say('assistant', 'a3 in b'));
    const d = h.store.appendBranch(b.id, 5, say('user', 'u3 edited in d'));
    const ids = (point: { branches: { id: string }[] }) => point.branches.map((x) => x.id);

    const fromD = h.store.branchPoints(d.id);
    expect(fromD.map((p) => p.at)).toEqual([3, 5]);
    expect(ids(nth(fromD, 0))).toEqual([root.id, b.id]);
    expect(nth(fromD, 0).current).toBe(1); // d follows b at message 3
    expect(ids(nth(fromD, 1))).toEqual([b.id, d.id]);
    expect(nth(fromD, 1).current).toBe(1);
    expect(h.store.branchPoints(b.id)).toEqual([expect.objectContaining({ at: 3, current: 1 }), expect.objectContaining({ at: 5, current: 0 })]);
    expect(h.store.branchPoints(root.id)).toEqual([expect.objectContaining({ at: 3, current: 0 })]);
    // A point past the end of this session's transcript is not one of its switchers.
    const short = h.store.fork(root.id, 2);
    expect(h.store.branchPoints(short.id)).toEqual([]);
  });

  it('a regenerated reply the user stops is kept as a stopped reply, as in a user turn', async () => {
    h = await makeAgentHarness();
    h.script({ text: 'First answer' });
    await h.send('hello');
    const branch = h.engine.regenerate(h.sessionId, 2);
    h.server.enqueue({ chunks: ['Half an ', 'answer.'], stallAfterChunks: 2 });
    const turn = h.engine.reply(branch.id);
    await expect.poll(() => h.engine.contextState(branch.id).replyInFlight).toBe('Half an ');
    h.engine.stop(branch.id);
    expect(await turn).toEqual({ error: null });
    expect(h.store.getTranscript(branch.id).at(-1)).toEqual({ role: 'assistant', content: 'Half an ', stopped: true });
    // It is a version of its own at message 3, beside the first answer.
    expect(h.engine.branches(branch.id)).toEqual([expect.objectContaining({ at: 2, current: 1 })]);
  });

  it('refuses what cannot be branched', async () => {
    h = await makeAgentHarness();
    h.script({ text: 'Reply' });
    await h.send('hello');
    await expect(h.engine.edit(h.sessionId, 2, 'x')).rejects.toThrow(/not one you sent/);
    expect(() => h.engine.regenerate(h.sessionId, 1)).toThrow(/not a reply/);
    await expect(h.engine.reply(h.sessionId)).rejects.toThrow(/No message of yours is waiting/);
    expect(h.store.list({ includeArchived: true })).toHaveLength(1);
  });

  it('family: the parent, its other forks and the forks of this one', async () => {
    h = await makeAgentHarness();
    h.script({ text: 'Reply' });
    await h.send('hello');
    const a = h.engine.fork(h.sessionId, 2);
    const b = h.engine.fork(h.sessionId);
    const child = h.engine.fork(a.id);
    const family = h.engine.family(a.id);
    expect(family.parent?.id).toBe(h.sessionId);
    expect(family.siblings.map((s) => s.id)).toEqual([b.id]);
    expect(family.children.map((s) => s.id)).toEqual([child.id]);
    expect(h.engine.family(h.sessionId)).toMatchObject({ parent: null, siblings: [] });
    expect(h.engine.family(h.sessionId).children.map((s) => s.id)).toEqual([a.id, b.id]);
    // The whole family, from its root, whichever member asks.
    for (const id of [h.sessionId, a.id, child.id]) expect(h.engine.family(id).members.map((s) => s.id)).toEqual([h.sessionId, a.id, b.id, child.id]);
  });

  it('names each branch for what it is: a fork, an edit, a retry; the edited words for a session the user never titled', async () => {
    h = await makeAgentHarness();
    h.script({ text: 'A1' });
    await h.send('first');
    h.script({ text: 'A2' });
    await h.send('second');
    const title = (id: string) => h.store.getMeta(id).title;
    expect(title(h.sessionId)).toBeNull(); // the list shows the model's summary
    const roles = h.store.getTranscript(h.sessionId).map((m) => m.role);
    const [asked, reply] = [roles.lastIndexOf('user'), roles.lastIndexOf('assistant')];

    expect(title(h.engine.fork(h.sessionId, 3).id)).toBe(`${SUMMARY_TEXT} · fork at 3`);
    const retry = h.engine.regenerate(h.sessionId, reply);
    expect(title(retry.id)).toBe(`${SUMMARY_TEXT} · retry 2`);
    h.server.enqueue({ text: 'A2 again' });
    await h.engine.reply(retry.id);
    // A retry of a retry is the third version of that reply, under the family's name, not "· retry 2 · retry 3".
    expect(title(h.engine.regenerate(retry.id, reply).id)).toBe(`${SUMMARY_TEXT} · retry 3`);
    expect(title((await h.engine.edit(h.sessionId, asked, 'second,\n  edited')).id)).toBe('second, edited');
    expect(title(h.sessionId)).toBeNull();
  });

  it("a titled session's branches carry its title and a suffix; the user's titles on either side stay theirs", async () => {
    h = await makeAgentHarness();
    h.script({ text: 'A1' });
    await h.send('first');
    h.engine.rename(h.sessionId, 'Parser work');
    const asked = h.store.getTranscript(h.sessionId).findIndex((m) => m.role === 'user');
    const edit = await h.engine.edit(h.sessionId, asked, 'first, edited');
    expect(edit.title).toBe('Parser work · edit 2');
    expect(h.store.getMeta(h.sessionId).title).toBe('Parser work');
    h.engine.rename(edit.id, 'Parser, the other way');
    expect(h.engine.fork(edit.id).title).toBe(`Parser, the other way · fork at ${asked + 1}`);
    expect(h.store.getMeta(edit.id).title).toBe('Parser, the other way');
  });
});
