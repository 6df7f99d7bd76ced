/**
 * Sync through a real PostgreSQL hub (docs/DESIGN.md#sync-through-a-hub): two data folders
 * as two devices of alice, a third as her teammate bob, each a real SessionStore on its
 * own loom.db, syncing with syncOnce over `pg` to a throw-away cluster.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubError, parseHubUrl, type HubConfig } from '../../src/core/sync/hub-connection';
import { initHub } from '../../src/core/sync/hub-init';
import { listenForHubChanges } from '../../src/core/sync/live';
import { shareSession } from '../../src/core/sync/share';
import { PUSH_BATCH } from '../../src/core/sync/push';
import { describeSyncReport, queuedChanges, syncOnce, type SyncReport } from '../../src/core/sync/sync';
import type { SessionStore } from '../../src/core/store/session-store';
import { assistant, openStore, user } from '../store/helpers';
import { nth } from '../support/elements';
import { describeWithHub } from '../support/hub-suite';
import { startTestCluster, type TestCluster } from '../support/postgres';

const SECRET = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
let cluster: TestCluster;
let alice: HubConfig;
let bob: HubConfig;

const sync = (store: SessionStore, hub: HubConfig, deviceLabel: string, options: Partial<Parameters<typeof syncOnce>[2]> = {}): Promise<SyncReport> =>
  syncOnce(store, hub, { deviceLabel, ...options });

const texts = (store: SessionStore, id: string) => store.getTranscript(id).map((m) => m.content);

/** Every session's id, parent, fork point and transcript, in id order: two devices with the same tree give the same value. */
function tree(store: SessionStore): unknown[] {
  const rows = store.db.prepare('SELECT s.id, s.parent_id, s.fork_at, s.title, s.note FROM sessions s ORDER BY s.id').all() as { id: string }[];
  return rows.map((row) => ({ ...row, transcript: texts(store, row.id) }));
}

async function hubCount(sql: string): Promise<number> {
  return Number((await cluster.admin(sql)).rows[0].n);
}

describeWithHub('sync through a PostgreSQL hub', () => {
  beforeAll(async () => {
    cluster = await startTestCluster();
    await initHub(parseHubUrl(cluster.ownerUrl));
    await cluster.createUser('alice', 'alice-pw');
    await cluster.createUser('bob', 'bob-pw');
    await cluster.admin(`INSERT INTO loom.team_members VALUES ('core', 'alice'), ('core', 'bob')`);
    alice = parseHubUrl(cluster.url('alice', 'alice-pw'));
    bob = parseHubUrl(cluster.url('bob', 'bob-pw'));
  }, 180_000);

  afterAll(async () => {
    await cluster?.destroy();
  });

  describe('two devices of one user', () => {
    it('first sync, then changes both ways; a second sync moves nothing', async () => {
      const laptop = openStore();
      const desktop = openStore();
      const s = laptop.create({ title: 'first sync', messages: [user('one'), assistant('two')] });
      const fork = laptop.fork(s.id, 1);
      laptop.appendMessage(fork.id, assistant('other two'));

      const first = await sync(laptop, alice, 'laptop');
      expect(first).toMatchObject({ pushedSessions: 2, pushedMessages: 3, pulledSessions: 0, branches: 0, deletes: 0, waiting: [] });
      expect(describeSyncReport(first)).toBe(`Synced with hub 127.0.0.1:${cluster.port}/loom: pushed 2 sessions (3 messages).`);
      expect(queuedChanges(laptop)).toBe(0);

      const pulled = await sync(desktop, alice, 'desktop');
      expect(pulled).toMatchObject({ pulledSessions: 2, pulledMessages: 3 });
      expect(tree(desktop)).toEqual(tree(laptop));

      desktop.appendMessage(s.id, user('three from the desktop'));
      desktop.rename(s.id, 'renamed on the desktop');
      expect(await sync(desktop, alice, 'desktop')).toMatchObject({ pushedSessions: 1, pushedMessages: 1 });
      expect(await sync(laptop, alice, 'laptop')).toMatchObject({ pulledSessions: 1, pulledMessages: 1 });
      expect(texts(laptop, s.id)).toEqual(['one', 'two', 'three from the desktop']);
      expect(laptop.getMeta(s.id).title).toBe('renamed on the desktop');
      expect(tree(laptop)).toEqual(tree(desktop));
      expect(describeSyncReport(await sync(laptop, alice, 'laptop'))).toMatch(/: nothing to do\.$/);
    });

    it('titles changed on both devices while apart: the later wins everywhere and the other is kept in loom.conflicts, in either sync order', async () => {
      const conflicts = async (id: string) =>
        (await cluster.admin(`SELECT field, value FROM loom.conflicts WHERE session_id = '${id}' ORDER BY recorded_at, hlc`)).rows as {
          field: string;
          value: unknown;
        }[];
      const titleStamp = (store: SessionStore, id: string) =>
        (store.db.prepare('SELECT title_hlc FROM sync_clocks WHERE session_id = ?').get(id) as { title_hlc: number }).title_hlc;
      for (const winnerSyncsFirst of [false, true]) {
        const laptop = openStore();
        const desktop = openStore();
        const s = laptop.create({ title: 'before', messages: [user('one')] });
        await sync(laptop, alice, 'laptop');
        await sync(desktop, alice, 'desktop');

        desktop.rename(s.id, 'renamed on the desktop');
        // Stamps are milliseconds × 1000 plus a counter: renames in the same millisecond on two devices
        // can stamp alike (docs/DESIGN.md#sync-through-a-hub). The laptop renames in a later one.
        const desktopMs = Math.floor(titleStamp(desktop, s.id) / 1000);
        while (Date.now() <= desktopMs) await new Promise(setImmediate);
        laptop.rename(s.id, 'renamed on the laptop');
        expect(titleStamp(laptop, s.id)).toBeGreaterThan(titleStamp(desktop, s.id));
        const [winner, loser, winnerTitle, loserTitle] = [laptop, desktop, 'renamed on the laptop', 'renamed on the desktop'];
        const [first, second] = winnerSyncsFirst ? [winner, loser] : [loser, winner];
        await sync(first, alice, 'first');
        await sync(second, alice, 'second');
        await sync(first, alice, 'first');

        expect(laptop.getMeta(s.id).title).toBe(winnerTitle);
        expect(desktop.getMeta(s.id).title).toBe(winnerTitle);
        expect(await conflicts(s.id)).toEqual([{ field: 'title', value: loserTitle }]);

        // A rename made after seeing the other device's title replaces it: nothing raced.
        loser.rename(s.id, 'renamed after seeing it');
        await sync(loser, alice, 'loser');
        await sync(winner, alice, 'winner');
        expect(winner.getMeta(s.id).title).toBe('renamed after seeing it');
        expect(await conflicts(s.id)).toHaveLength(1);
      }
    });

    it('divergent appends become a branch with a note, and both devices end with the same tree', async () => {
      const laptop = openStore();
      const desktop = openStore();
      const s = laptop.create({ title: 'diverging', messages: [user('one'), assistant('two')] });
      await sync(laptop, alice, 'laptop');
      await sync(desktop, alice, 'desktop');
      laptop.appendMessage(s.id, user('three on the laptop'));
      desktop.appendMessage(s.id, user('three on the desktop'));
      desktop.appendMessage(s.id, assistant('four on the desktop'));

      await sync(laptop, alice, 'laptop');
      const report = await sync(desktop, alice, 'desktop');
      expect(report.branches).toBe(1);
      expect(describeSyncReport(report)).toContain('1 branch from a divergence');
      await sync(laptop, alice, 'laptop');

      expect(texts(desktop, s.id)).toEqual(['one', 'two', 'three on the laptop']);
      const branches = desktop.branchesAt(s.id, 2);
      expect(branches).toHaveLength(2);
      expect(texts(desktop, nth(branches, 1).id)).toEqual(['one', 'two', 'three on the desktop', 'four on the desktop']);
      const note = 'Diverged: written on desktop while laptop added to the same session; kept as a branch.';
      expect(tree(desktop).filter((row) => (row as { note: string | null }).note === note)).toHaveLength(1);
      expect(tree(laptop)).toEqual(tree(desktop));
    });

    it('a delete reaches the other device', async () => {
      const laptop = openStore();
      const desktop = openStore();
      const s = laptop.create({ title: 'to delete', messages: [user('bye')] });
      await sync(laptop, alice, 'laptop');
      await sync(desktop, alice, 'desktop');
      expect(desktop.getMeta(s.id).title).toBe('to delete');
      desktop.delete(s.id);
      await sync(desktop, alice, 'desktop');
      expect(await sync(laptop, alice, 'laptop')).toMatchObject({ deletes: 1 });
      expect(() => laptop.getMeta(s.id)).toThrow(/No session/);
      expect(await hubCount(`SELECT count(*) AS n FROM loom.entries WHERE session_id = '${s.id}'`)).toBe(0);
    });

    it('a session another process holds waits in the inbox and is applied by a later sync', async () => {
      const laptop = openStore();
      const desktop = openStore();
      const s = laptop.create({ messages: [user('one')] });
      await sync(laptop, alice, 'laptop');
      await sync(desktop, alice, 'desktop');
      const lease = desktop.acquireLease(s.id, 'another-process');
      const syncer = openStore(desktop.dataDir);
      laptop.appendMessage(s.id, assistant('two'));
      await sync(laptop, alice, 'laptop');

      const waiting = await sync(syncer, alice, 'desktop');
      expect(waiting.waiting).toEqual([s.id]);
      expect(describeSyncReport(waiting)).toContain('1 session in use elsewhere, to be applied on a later sync');
      expect(texts(syncer, s.id)).toEqual(['one']);
      lease.release();
      expect((await sync(syncer, alice, 'desktop')).waiting).toEqual([]);
      expect(texts(syncer, s.id)).toEqual(['one', 'two']);
    });

    it('what the process holding a session wrote meanwhile is held back, then branched off once the waiting changes apply', async () => {
      const laptop = openStore();
      const desktop = openStore();
      const s = laptop.create({ messages: [user('one')] });
      await sync(laptop, alice, 'laptop');
      await sync(desktop, alice, 'desktop');
      const lease = desktop.acquireLease(s.id, 'the desktop app');
      const syncer = openStore(desktop.dataDir);
      laptop.appendMessage(s.id, assistant('two on the laptop'));
      await sync(laptop, alice, 'laptop');
      desktop.appendMessage(s.id, assistant('two in the desktop app'));

      expect((await sync(syncer, alice, 'desktop')).waiting).toEqual([s.id]);
      expect(queuedChanges(syncer)).toBeGreaterThan(0);
      expect(await hubCount(`SELECT count(*) AS n FROM loom.entries WHERE session_id = '${s.id}'`)).toBe(2);
      lease.release();
      expect(await sync(syncer, alice, 'desktop')).toMatchObject({ waiting: [], branches: 1 });
      expect(queuedChanges(syncer)).toBe(0);
      await sync(laptop, alice, 'laptop');
      expect(texts(laptop, s.id)).toEqual(['one', 'two on the laptop']);
      const branch = nth(laptop.branchesAt(s.id, 1), 1);
      expect(texts(laptop, branch.id)).toEqual(['one', 'two in the desktop app']);
      expect(laptop.db.prepare('SELECT note FROM sessions WHERE id = ?').get(branch.id)).toEqual({
        note: 'Diverged: written on desktop while laptop added to the same session; kept as a branch.',
      });
      expect(tree(laptop)).toEqual(tree(syncer));
    });
  });

  it('a secret in a message never reaches any hub table', async () => {
    const laptop = openStore();
    const s = laptop.create({ title: `deploy with ${SECRET}`, messages: [user(`my token is ${SECRET}`), assistant(`noted: ${SECRET}`)] });
    laptop.setSummary(s.id, `the ${SECRET} token`);
    await sync(laptop, alice, 'laptop');
    expect(await hubCount(`SELECT count(*) AS n FROM loom.entries WHERE session_id = '${s.id}'`)).toBe(2);
    for (const table of ['bodies', 'sessions', 'records', 'entries', 'conflicts']) {
      expect(await hubCount(`SELECT count(*) AS n FROM loom.${table} t WHERE t::text LIKE '%${SECRET}%'`)).toBe(0);
    }
    expect(await hubCount(`SELECT count(*) AS n FROM loom.bodies WHERE body->>'content' = 'my token is [REDACTED]'`)).toBe(1);
    expect(texts(laptop, s.id)[0]).toBe(`my token is ${SECRET}`);
  });

  it('a text that only starts like an image data URL is redacted like any other; a real one is sent as it is', async () => {
    const laptop = openStore();
    const png = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    const disguised = [
      `data:image/png;base64,iVBORw0KGgo ${SECRET}`,
      `data:image/svg+xml,<svg><text>${SECRET}</text></svg>`,
      `data:image/ ${SECRET}`,
      `${png}\n${SECRET}`,
    ];
    const s = laptop.create({
      title: nth(disguised, 2),
      messages: [user(nth(disguised, 0)), assistant(nth(disguised, 1)), assistant(nth(disguised, 3)), user(png)],
    });
    laptop.setSummary(s.id, nth(disguised, 1));
    laptop.rename(s.id, nth(disguised, 0));
    await sync(laptop, alice, 'laptop');
    expect(await hubCount(`SELECT count(*) AS n FROM loom.entries WHERE session_id = '${s.id}'`)).toBe(4);
    for (const table of ['bodies', 'sessions', 'records', 'entries', 'conflicts']) {
      expect(await hubCount(`SELECT count(*) AS n FROM loom.${table} t WHERE t::text LIKE '%${SECRET}%'`)).toBe(0);
    }
    expect(await hubCount(`SELECT count(*) AS n FROM loom.bodies WHERE body->>'content' = '${png}'`)).toBe(1);
    expect(texts(laptop, s.id)).toEqual([disguised[0], disguised[1], disguised[3], png]);
  });

  it('bodies with quotes, backslashes, braces and non-ASCII text reach another device unchanged and are searchable on the hub', async () => {
    const laptop = openStore();
    const desktop = openStore();
    const awkward = ['say "hi" {not: json} \\ back\\slash\n\ttab', 'unicode: naïve café 日本語 🧵 zanzibarquartz', '[1, 2, "three"]'];
    const s = laptop.create({ title: 'awkward bodies', messages: awkward.map((text) => user(text)) });
    expect(await sync(laptop, alice, 'laptop')).toMatchObject({ pushedMessages: 3 });
    const bodies = `loom.bodies b JOIN loom.entries e ON e.owner = b.owner AND e.body_hash = b.hash WHERE e.session_id = '${s.id}'`;
    const onHub = await cluster.admin(`SELECT b.body->>'content' AS content FROM ${bodies} ORDER BY e.seq`);
    expect(onHub.rows.map((row: { content: string }) => row.content)).toEqual(awkward);
    expect(await hubCount(`SELECT count(*) AS n FROM ${bodies} AND b.search @@ to_tsquery('english', 'zanzibarquartz')`)).toBe(1);
    await sync(desktop, alice, 'desktop');
    expect(texts(desktop, s.id)).toEqual(awkward);
  });

  it('a session shared with a team reaches the teammate; the rest of the owner sessions do not', async () => {
    const laptop = openStore();
    const teammate = openStore();
    const shared = laptop.create({ title: 'shared with core', messages: [user('for the team')] });
    const secret = laptop.create({ title: 'private', messages: [user('mine only')] });
    shareSession(laptop, shared.id, 'core');
    await sync(laptop, alice, 'laptop');
    await sync(teammate, bob, 'bob-laptop');
    expect(texts(teammate, shared.id)).toEqual(['for the team']);
    expect(() => teammate.getMeta(secret.id)).toThrow(/No session/);
    // A teammate's own change to a session they only read stays on their device and does not stop their sync.
    teammate.appendMessage(shared.id, assistant('a reply from bob'));
    await sync(teammate, bob, 'bob-laptop');
    expect(await hubCount(`SELECT count(*) AS n FROM loom.entries WHERE session_id = '${shared.id}'`)).toBe(1);
  });

  it('the hub stopped mid-sync: one line, local data untouched, the rest still queued, and the next sync completes', async () => {
    const laptop = openStore();
    const ids = seedSessions(laptop, 30, 100);
    let stopped = false;
    const failure = await sync(laptop, alice, 'laptop', {
      onProgress: async ({ phase }) => {
        if (phase !== 'push' || stopped) return;
        stopped = true;
        await cluster.stop();
      },
    }).catch((err: unknown) => err);
    try {
      expect(failure).toBeInstanceOf(HubError);
      expect((failure as HubError).unreachable).toBe(true);
      expect((failure as HubError).message).not.toContain('alice-pw');
      expect((failure as HubError).message.split('\n')).toHaveLength(1);
      // Turning sync on queued 30 sessions and 3,000 messages; the first batch of 2,000 reached the hub before it stopped.
      expect(queuedChanges(laptop)).toBe(3_030 - PUSH_BATCH);
      expect(texts(laptop, nth(ids, 0))).toHaveLength(100);
      expect(texts(laptop, nth(ids, 29))).toHaveLength(100);
    } finally {
      await cluster.start();
    }
    const report = await sync(laptop, alice, 'laptop');
    expect(report.pushedMessages).toBeGreaterThan(0);
    expect(queuedChanges(laptop)).toBe(0);
    expect(await hubCount(`SELECT count(*) AS n FROM loom.entries WHERE session_id = ANY(ARRAY['${ids.join("','")}']::uuid[])`)).toBe(3_000);
  });

  it('a listener hears every push, and hears again once a restarted hub is back', async () => {
    const laptop = openStore();
    const desktop = openStore();
    let heard = 0;
    let wake = () => undefined as void;
    const next = () => new Promise<void>((resolve) => (wake = resolve));
    let change = next();
    const listener = await listenForHubChanges(alice, () => {
      heard += 1;
      wake();
    });
    try {
      const s = laptop.create({ messages: [user('live')] });
      await sync(laptop, alice, 'laptop');
      await change;
      expect(heard).toBe(1);
      change = next();
      // The test cluster commits asynchronously: flushed first, so the restart keeps what was pushed.
      await cluster.admin('CHECKPOINT');
      await cluster.stop();
      await cluster.start();
      await change; // reconnected: changes may have been missed meanwhile, so it says so
      change = next();
      laptop.appendMessage(s.id, assistant('after the restart'));
      await sync(laptop, alice, 'laptop');
      await change;
      await sync(desktop, alice, 'desktop');
      expect(texts(desktop, s.id)).toEqual(['live', 'after the restart']);
    } finally {
      await listener.close();
    }
  });
});

/** `count` sessions of `messages` messages each, written in one transaction. */
export function seedSessions(store: SessionStore, count: number, messages: number): string[] {
  return store.batch(() =>
    Array.from({ length: count }, (_, i) => {
      const meta = store.create({ title: `seeded ${i}` });
      store.appendMessages(
        meta.id,
        Array.from({ length: messages }, (_, j) => (j % 2 ? assistant(`reply ${i}.${j}`) : user(`question ${i}.${j}`))),
      );
      return meta.id;
    }),
  );
}
