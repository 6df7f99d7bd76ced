/**
 * Sessions as a whole through a real PostgreSQL hub (docs/DESIGN.md#sync-through-a-hub):
 * a parent's sub-agents arrive linked to it, with their agent and run state, and the
 * session's agent and its agent changes arrive with it; a delete takes the children along
 * on the other device; a state an older Loom pushed, without them, does not unlink them.
 * Two data folders as two devices of alice, syncing with syncOnce.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { parseHubUrl, type HubConfig } from '../../src/core/sync/hub-connection';
import { initHub } from '../../src/core/sync/hub-init';
import { syncOnce } from '../../src/core/sync/sync';
import { databasePath } from '../../src/core/store/db';
import { SessionStore } from '../../src/core/store/session-store';
import { assistant, openStore, tempDir, user } from '../store/helpers';
import { describeWithHub } from '../support/hub-suite';
import { startTestCluster, type TestCluster } from '../support/postgres';

let cluster: TestCluster;
let alice: HubConfig;
let users = 0;

const sync = (store: SessionStore, deviceLabel: string) => syncOnce(store, alice, { deviceLabel });

/** What a parent's card shows of each child: its id, title, agent, run state and whose call started it. */
const childrenOf = (store: SessionStore, id: string) =>
  store.children(id).map((c) => ({ id: c.id, title: c.title, agent: c.child.agent, state: c.child.state, parent: c.child.parent_id, call: c.child.call_id }));

/** A parent that ran two sub-agents (one done, one still running) after switching to the "review" agent. */
function parentWithChildren(store: SessionStore): { parent: string; first: string; second: string } {
  const parent = store.create({ title: 'the parent', messages: [user('look into the tests'), assistant('on it')] }).id;
  store.setAgent(parent, 'review');
  const first = store.create({ title: 'explorer', spawn: { parentId: parent, callId: 'call_1', agent: 'explore' }, messages: [user('find the tests')] }).id;
  store.setChildState(first, 'done');
  const second = store.create({ title: 'planner', spawn: { parentId: parent, callId: 'call_2', agent: 'plan.v2' }, messages: [user('plan it')] }).id;
  return { parent, first, second };
}

describeWithHub('sync carries sub-agents and agents', () => {
  beforeAll(async () => {
    cluster = await startTestCluster();
    await initHub(parseHubUrl(cluster.ownerUrl));
  }, 180_000);

  // Each test is a user of its own, so its devices pull only its sessions.
  beforeEach(async () => {
    const name = `alice${++users}`;
    await cluster.createUser(name, `${name}-pw`);
    alice = parseHubUrl(cluster.url(name, `${name}-pw`));
  });

  afterAll(async () => {
    await cluster?.destroy();
  });

  it('a parent with two children and an agent change arrives whole: linked children, their agents and states, the agent and its change', async () => {
    const laptop = openStore();
    const desktop = openStore();
    const { parent, first, second } = parentWithChildren(laptop);

    expect(await sync(laptop, 'laptop')).toMatchObject({ pushedSessions: 3 });
    expect(await sync(desktop, 'desktop')).toMatchObject({ pulledSessions: 3, skipped: [] });

    expect(childrenOf(desktop, parent)).toEqual([
      { id: first, title: 'explorer', agent: 'explore', state: 'done', parent, call: 'call_1' },
      { id: second, title: 'planner', agent: 'plan.v2', state: 'running', parent, call: 'call_2' },
    ]);
    expect(childrenOf(desktop, parent)).toEqual(childrenOf(laptop, parent));
    expect(desktop.getMeta(parent).agent).toBe('review');
    expect(desktop.getAgentChanges(parent)).toEqual(laptop.getAgentChanges(parent));
    expect(desktop.getAgentChanges(parent)).toMatchObject([{ from: null, to: 'review', transcript_index: 2 }]);
    // The list (--list-sessions, the sidebar) leaves the children out, as on the laptop.
    expect(desktop.list().map((s) => s.id)).toEqual([parent]);
    expect(desktop.listPage({ limit: 10 }).children).toEqual({ [parent]: 2 });
    expect(
      desktop
        .list({ includeChildren: true })
        .map((s) => s.id)
        .sort(),
    ).toEqual([parent, first, second].sort());
  });

  it("later changes go both ways, last writer wins: a child's end, a new agent; a parent deleted on one device takes its children on the other", async () => {
    const laptop = openStore();
    const desktop = openStore();
    const { parent, first, second } = parentWithChildren(laptop);
    await sync(laptop, 'laptop');
    await sync(desktop, 'desktop');

    laptop.setChildState(second, 'failed');
    desktop.setAgent(parent, 'explore');
    await sync(laptop, 'laptop');
    await sync(desktop, 'desktop');
    await sync(laptop, 'laptop');
    for (const store of [laptop, desktop]) {
      expect(store.childLink(second)?.state).toBe('failed');
      expect(store.getMeta(parent).agent).toBe('explore');
      expect(store.getAgentChanges(parent).map((c) => c.to)).toEqual(['review', 'explore']);
    }

    // A child the desktop started and pushed, that the laptop never pulled, goes too, and its tombstone reaches the hub.
    const third = desktop.create({ title: 'late child', spawn: { parentId: parent, callId: 'call_3', agent: 'explore' }, messages: [user('late')] }).id;
    await sync(desktop, 'desktop');
    laptop.delete(parent);
    await sync(laptop, 'laptop');
    expect(await sync(desktop, 'desktop')).toMatchObject({ deletes: 4 });
    for (const id of [parent, first, second, third]) expect(desktop.has(id)).toBe(false);
    expect(desktop.list({ includeChildren: true })).toEqual([]);
    await sync(desktop, 'desktop');
    const { rows } = await cluster.admin(`SELECT count(*) AS n FROM loom.sessions WHERE id = '${third}' AND deleted_hlc IS NOT NULL`);
    expect(Number(rows[0].n)).toBe(1);
  });

  it('a child whose parent is not on this device yet lists on its own, and goes under its parent once the parent arrives', async () => {
    const laptop = openStore();
    const desktop = openStore();
    const { parent, first, second } = parentWithChildren(laptop);
    await sync(laptop, 'laptop');
    // The desktop sees the children first: the parent's hub row is held back past the hub's clock, then let through.
    await cluster.admin(`UPDATE loom.sessions SET hub_seq = 1000000 WHERE id = '${parent}'`);
    expect(await sync(desktop, 'desktop')).toMatchObject({ skipped: [] });
    expect(desktop.has(parent)).toBe(false);
    expect(
      desktop
        .list()
        .map((s) => s.id)
        .sort(),
    ).toEqual([first, second].sort());
    expect(desktop.childLink(first)).toMatchObject({ parent_id: parent, state: 'done' });

    await cluster.admin(`UPDATE loom.clock SET seq = 1000000 WHERE id = 1`);
    await sync(desktop, 'desktop');
    expect(desktop.list().map((s) => s.id)).toEqual([parent]);
    expect(childrenOf(desktop, parent).map((c) => c.id)).toEqual([first, second]);
  });

  it('a state an older Loom pushed, without the agent and link, keeps them here when it wins; an explicit null still unlinks', async () => {
    const laptop = openStore();
    const desktop = openStore();
    const { parent, first } = parentWithChildren(laptop);
    await sync(laptop, 'laptop');
    await sync(desktop, 'desktop');
    // An older Loom on a third device writes both states as it knows them, with a later clock.
    const olderLoom = (id: string, also = '') =>
      cluster.admin(
        `UPDATE loom.sessions SET state = (state - 'agent' - 'spawned_by' - 'spawn_call_id' - 'spawn_agent' - 'child_state' || '{"summary": "from an older Loom"}'::jsonb)${also},
                state_hlc = state_hlc + 1000000, hub_seq = (SELECT seq FROM loom.clock) WHERE id = $1`,
        [id],
      );
    await cluster.admin(`UPDATE loom.clock SET seq = seq + 1 WHERE id = 1`);
    await olderLoom(parent);
    await olderLoom(first);
    expect(await sync(desktop, 'desktop')).toMatchObject({ pulledSessions: 2, skipped: [] });
    expect(desktop.getMeta(first).summary).toBe('from an older Loom');
    expect(desktop.childLink(first)).toEqual({ parent_id: parent, call_id: 'call_1', agent: 'explore', state: 'done' });
    expect(desktop.getMeta(parent).agent).toBe('review');
    expect(childrenOf(desktop, parent).map((c) => c.id)).toContain(first);

    await cluster.admin(`UPDATE loom.clock SET seq = seq + 1 WHERE id = 1`);
    await olderLoom(first, ` || '{"spawned_by": null, "spawn_call_id": null, "spawn_agent": null, "child_state": null}'::jsonb`);
    await sync(desktop, 'desktop');
    expect(desktop.childLink(first)).toBeNull();
  });

  it('a device that synced before this Loom (store version 18) sends its links, agents and agent changes once it upgrades', async () => {
    const dir = path.join(tempDir(), 'laptop');
    let laptop = SessionStore.open(dir);
    const { parent, first, second } = parentWithChildren(laptop);
    await sync(laptop, 'laptop');
    laptop.close();
    // What an older Loom left: the hub's states without the five fields, no agent-change records; the store at version 18.
    await cluster.admin(`UPDATE loom.sessions SET state = state - 'agent' - 'spawned_by' - 'spawn_call_id' - 'spawn_agent' - 'child_state'`);
    await cluster.admin(`DELETE FROM loom.records WHERE kind = 'agent_change'`);
    const old = new Database(databasePath(dir));
    old.exec(
      'DROP TRIGGER sync_queue_agent_changes; ' +
        // Version 20's families, too: the upgrade adds them again.
        'DROP TRIGGER sessions_family_created; DROP TRIGGER sessions_family_reparented; DROP INDEX sessions_by_family; ALTER TABLE sessions DROP COLUMN family_id; ' +
        'UPDATE schema_version SET version = 18',
    );
    old.close();

    laptop = SessionStore.open(dir);
    try {
      await sync(laptop, 'laptop');
    } finally {
      laptop.close();
    }
    const desktop = openStore();
    expect(await sync(desktop, 'desktop')).toMatchObject({ skipped: [] });
    expect(childrenOf(desktop, parent).map((c) => [c.id, c.agent, c.state])).toEqual([
      [first, 'explore', 'done'],
      [second, 'plan.v2', 'running'],
    ]);
    expect(desktop.getMeta(parent).agent).toBe('review');
    expect(desktop.getAgentChanges(parent).map((c) => c.to)).toEqual(['review']);
  });
});
