/**
 * A hostile teammate on a real hub (docs/SECURITY.md §14): bob shares a session with
 * alice's team, then does what his role lets him do to the hub — holds the shared clock's
 * lock, writes malformed rows into his own shared session — and alice's `loom --sync`
 * still ends, in one line, and still brings her own changes to the hub.
 */
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseHubUrl } from '../../src/core/sync/hub-connection';
import { initHub } from '../../src/core/sync/hub-init';
import { SessionStore } from '../../src/core/store/session-store';
import { buildLoom, expectOneErrorLine, makeTempDir, removeDir, runLoom } from '../cli/run-loom';
import { assistant, user } from '../store/helpers';
import { describeWithHub } from '../support/hub-suite';
import { startTestCluster, type TestCluster } from '../support/postgres';

let cluster: TestCluster;
let home: string;
let folders = 0;

beforeAll(buildLoom, 120_000);

/** A data folder of its own with one session holding `messages`, written while closed again. */
function dataFolder(title: string, messages = [user('a question'), assistant('an answer')]): { dir: string; id: string } {
  const dir = path.join(home, `device-${++folders}`);
  const store = SessionStore.open(dir);
  try {
    const { id } = store.create({ title, messages });
    return { dir, id };
  } finally {
    store.close();
  }
}

const syncAs = (who: 'alice' | 'bob', dir: string) =>
  runLoom(['--data-dir', dir, '--sync'], { env: { LOOM_HUB: cluster.url(who, `${who}-pw`), LOOM_DEVICE_NAME: `${who}'s laptop` } });

async function hubCount(sql: string): Promise<number> {
  return Number((await cluster.admin(sql)).rows[0].n);
}

/** bob, connected on his own, inside a transaction he keeps open. */
async function bobInTransaction(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: cluster.url('bob', 'bob-pw') });
  await client.connect();
  await client.query('BEGIN');
  return client;
}

describeWithHub('a hostile teammate', () => {
  beforeAll(async () => {
    home = makeTempDir('loom-hostile-');
    cluster = await startTestCluster();
    await initHub(parseHubUrl(cluster.ownerUrl));
    await cluster.createUser('alice', 'alice-pw');
    await cluster.createUser('bob', 'bob-pw');
    await cluster.admin(`INSERT INTO loom.team_members VALUES ('core', 'alice'), ('core', 'bob')`);
  }, 180_000);

  afterAll(async () => {
    await cluster?.destroy();
    removeDir(home);
  });

  it.each([
    ['an open UPDATE of the clock', 'UPDATE loom.clock SET seq = seq + 1 WHERE id = 1'],
    ['a SELECT … FOR UPDATE of the clock', 'SELECT seq FROM loom.clock WHERE id = 1 FOR UPDATE'],
  ])("bob holding the hub's clock (%s) makes alice's sync end in one line, and the next one pushes", async (_, lock) => {
    const alice = dataFolder('held up');
    const bob = await bobInTransaction();
    try {
      await bob.query(lock);
      const held = await syncAs('alice', alice.dir);
      expect(held.code).toBe(1);
      expect(expectOneErrorLine(held)).toMatch(/^loom: The hub at postgres:\/\/alice@127\.0\.0\.1:\d+\/loom is busy: another connection held a lock/);
      expect(held.stderr).not.toContain('alice-pw');
      expect(await hubCount(`SELECT count(*) AS n FROM loom.sessions WHERE id = '${alice.id}'`)).toBe(0);
    } finally {
      await bob.query('ROLLBACK');
      await bob.end();
    }
    const after = await syncAs('alice', alice.dir);
    expect(after.stderr).toBe('');
    expect(after.stdout).toContain('pushed 1 session (2 messages)');
    expect(await hubCount(`SELECT count(*) AS n FROM loom.entries WHERE session_id = '${alice.id}'`)).toBe(2);
  });
});
