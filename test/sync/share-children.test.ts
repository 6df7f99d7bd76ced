/**
 * Sharing a parent session shares its sub-agents (docs/DESIGN.md#sync-through-a-hub), on a
 * real PostgreSQL hub: alice shares a parent with team core, and her teammates see its
 * children under it — those on the hub already, their own children, and one started later
 * on another of her devices — with their usage, and nothing else of hers. bob, a teammate
 * (docs/SECURITY.md §14), cannot ride a share of hers: a session of his that names her
 * shared parent as its own is not shared by it, and arrives unlinked when he shares it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseHubUrl, type HubConfig } from '../../src/core/sync/hub-connection';
import { initHub } from '../../src/core/sync/hub-init';
import { shareSession } from '../../src/core/sync/share';
import { syncOnce } from '../../src/core/sync/sync';
import type { SessionStore } from '../../src/core/store/session-store';
import { assistant, openStore, user } from '../store/helpers';
import { describeWithHub } from '../support/hub-suite';
import { startTestCluster, type TestCluster } from '../support/postgres';

let cluster: TestCluster;
const hub: Record<'alice' | 'bob' | 'carol', HubConfig> = {} as never;

const sync = (store: SessionStore, who: keyof typeof hub, deviceLabel = `${who}'s laptop`) => syncOnce(store, hub[who], { deviceLabel });

const childIds = (store: SessionStore, id: string) => store.children(id).map((c) => c.id);

/** The teams each of `ids` is shared with on the hub, whoever shared it. */
async function sharedWith(ids: string[]): Promise<Record<string, string[]>> {
  const { rows } = await cluster.admin(`SELECT session_id::text AS id, team FROM loom.shares WHERE session_id = ANY($1::uuid[]) ORDER BY team`, [ids]);
  return Object.fromEntries(ids.map((id) => [id, rows.filter((r) => r.id === id).map((r) => String(r.team))]));
}

/** A parent with two sub-agents, the second with one of its own; the first made a paid call. */
function family(store: SessionStore, title: string) {
  const parent = store.create({ title, messages: [user('look into the tests'), assistant('on it')] }).id;
  const first = store.create({ title: `${title}: explorer`, spawn: { parentId: parent, callId: 'call_1', agent: 'explore' }, messages: [user('find')] }).id;
  store.recordUsage(first, 'chat', { prompt_tokens: 100, completion_tokens: 20, cost_usd: 0.25 });
  store.setChildState(first, 'done');
  const second = store.create({ title: `${title}: planner`, spawn: { parentId: parent, callId: 'call_2', agent: 'plan' }, messages: [user('plan')] }).id;
  const grandchild = store.create({ title: `${title}: helper`, spawn: { parentId: second, callId: 'call_9', agent: 'explore' }, messages: [user('help')] }).id;
  return { parent, first, second, grandchild };
}

describeWithHub('sharing a parent shares its sub-agents', () => {
  beforeAll(async () => {
    cluster = await startTestCluster();
    await initHub(parseHubUrl(cluster.ownerUrl));
    for (const who of ['alice', 'bob', 'carol'] as const) {
      await cluster.createUser(who, `${who}-pw`);
      hub[who] = parseHubUrl(cluster.url(who, `${who}-pw`));
    }
    await cluster.admin(`INSERT INTO loom.team_members VALUES ('core', 'alice'), ('core', 'bob'), ('core', 'carol')`);
  }, 180_000);

  afterAll(async () => {
    await cluster?.destroy();
  });

  it("a teammate sees the children already on the hub, theirs, and one started later on another of the owner's devices; nothing else of hers", async () => {
    const laptop = openStore();
    const desktop = openStore();
    const shared = family(laptop, 'shared');
    const secret = family(laptop, 'secret');
    await sync(laptop, 'alice');
    shareSession(laptop, shared.parent, 'core');
    await sync(laptop, 'alice');

    const bob = openStore();
    expect(await sync(bob, 'bob')).toMatchObject({ pulledSessions: 4, skipped: [] });
    expect(childIds(bob, shared.parent)).toEqual([shared.first, shared.second]);
    expect(childIds(bob, shared.second)).toEqual([shared.grandchild]);
    expect(bob.children(shared.parent).map((c) => [c.child.agent, c.child.state])).toEqual([
      ['explore', 'done'],
      ['plan', 'running'],
    ]);
    expect(bob.getFamilyUsage(shared.parent).children).toMatchObject({ calls: 1, cost_usd: 0.25 });
    expect(bob.getTranscript(shared.first).map((m) => m.content)).toEqual(['find']);
    expect(bob.list().map((s) => s.id)).toEqual([shared.parent]);
    for (const id of Object.values(secret)) expect(bob.has(id)).toBe(false);

    // A child started after the share, on alice's other device, is shared as it syncs.
    await sync(desktop, 'alice', "alice's desktop");
    const later = desktop.create({ title: 'late child', spawn: { parentId: shared.parent, callId: 'call_3', agent: 'explore' }, messages: [user('late')] }).id;
    await sync(desktop, 'alice', "alice's desktop");
    await sync(bob, 'bob');
    expect(childIds(bob, shared.parent)).toEqual([shared.first, shared.second, later]);
    expect(bob.getTranscript(later).map((m) => m.content)).toEqual(['late']);

    // A member who joins later sees the children with the parent; and the children stay read-only to teammates.
    await cluster.admin(`INSERT INTO loom.team_members VALUES ('late', 'alice'), ('late', 'carol')`);
    shareSession(laptop, shared.parent, 'late');
    await sync(laptop, 'alice');
    expect(await sharedWith([shared.parent, shared.first, shared.grandchild, later, secret.first])).toEqual({
      [shared.parent]: ['core', 'late'],
      [shared.first]: ['core', 'late'],
      [shared.grandchild]: ['core', 'late'],
      [later]: ['core', 'late'],
      [secret.first]: [],
    });
    bob.appendMessage(shared.first, assistant('a reply from bob'));
    await sync(bob, 'bob');
    const { rows } = await cluster.admin(`SELECT count(*) AS n FROM loom.entries WHERE session_id = $1`, [shared.first]);
    expect(Number(rows[0].n)).toBe(1);
  });

  it('a share queued with the children, before any sync, takes them in the same push', async () => {
    const laptop = openStore();
    const mine = family(laptop, 'first push');
    shareSession(laptop, mine.parent, 'core');
    await sync(laptop, 'alice');
    const carol = openStore();
    await sync(carol, 'carol');
    expect(childIds(carol, mine.parent)).toEqual([mine.first, mine.second]);
    expect(childIds(carol, mine.second)).toEqual([mine.grandchild]);
  });

  it("bob's session naming alice's shared parent as its own is not shared by her share, and arrives unlinked when he shares it", async () => {
    const alice = openStore();
    const mine = family(alice, 'targeted');
    shareSession(alice, mine.parent, 'core');
    await sync(alice, 'alice');

    const bob = openStore();
    await sync(bob, 'bob');
    const planted = bob.create({ title: 'planted', spawn: { parentId: mine.parent, callId: 'call_x', agent: 'explore' }, messages: [user('trust me')] }).id;
    await sync(bob, 'bob');
    // alice shares again and starts another child: her push still goes through, and does not reach bob's session.
    alice.create({ title: 'another child', spawn: { parentId: mine.parent, callId: 'call_4', agent: 'explore' }, messages: [user('more')] });
    shareSession(alice, mine.parent, 'core');
    expect(await sync(alice, 'alice')).toMatchObject({ skipped: [], refusedTeams: [] });
    expect(await sharedWith([planted])).toEqual({ [planted]: [] });

    const carol = openStore();
    await sync(carol, 'carol');
    expect(carol.has(planted)).toBe(false);
    shareSession(bob, planted, 'core');
    await sync(bob, 'bob');
    expect(await sync(carol, 'carol')).toMatchObject({ skipped: [] });
    expect(carol.childLink(planted)).toBeNull();
    expect(childIds(carol, mine.parent)).not.toContain(planted);
    expect(carol.getFamilyUsage(mine.parent).children.calls).toBe(1);
  });
});
