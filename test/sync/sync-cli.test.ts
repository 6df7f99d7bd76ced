/**
 * `loom --sync` and `loom --share` as a user runs them (the built command, a real hub):
 * the one line a sync prints, usage mistakes (exit 2), a hub that is down (exit 1, one
 * line, no password), and a `loom --sync` killed with SIGKILL mid-push, then run again:
 * the hub ends with every message once and another device gets the same sessions.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseHubUrl } from '../../src/core/sync/hub-connection';
import { initHub } from '../../src/core/sync/hub-init';
import { PUSH_BATCH } from '../../src/core/sync/push';
import { SessionStore } from '../../src/core/store/session-store';
import { BIN, ROOT, buildLoom, expectOneErrorLine, makeTempDir, removeDir, runLoom } from '../cli/run-loom';
import { assistant, user } from '../store/helpers';
import { nth } from '../support/elements';
import { describeWithHub } from '../support/hub-suite';
import { startTestCluster, type TestCluster } from '../support/postgres';

let cluster: TestCluster;
let url: string;
let home: string;

beforeAll(buildLoom, 120_000);

/** A data folder holding `count` sessions of `messages` messages each, written while closed again. */
function dataFolder(name: string, count: number, messages: number): string {
  const dir = path.join(home, name);
  const store = SessionStore.open(dir);
  store.batch(() => {
    for (let i = 0; i < count; i++) {
      const { id } = store.create({ title: `${name} ${i}` });
      store.appendMessages(
        id,
        Array.from({ length: messages }, (_, j) => (j % 2 ? assistant(`reply ${i}.${j}`) : user(`question ${i}.${j}`))),
      );
    }
  });
  store.close();
  return dir;
}

function transcripts(dir: string): Record<string, string[]> {
  const store = SessionStore.open(dir);
  try {
    const ids = (store.db.prepare('SELECT id FROM sessions ORDER BY id').all() as { id: string }[]).map((r) => r.id);
    return Object.fromEntries(ids.map((id) => [id, store.getTranscript(id).map((m) => JSON.stringify(m.content))]));
  } finally {
    store.close();
  }
}

async function hubNumber(sql: string): Promise<number> {
  return Number((await cluster.admin(sql)).rows[0].n);
}

describeWithHub('loom --sync and --share', () => {
  beforeAll(async () => {
    home = makeTempDir('loom-sync-cli-');
    cluster = await startTestCluster();
    await initHub(parseHubUrl(cluster.ownerUrl));
    await cluster.createUser('alice', 'alice-pw');
    await cluster.admin(`INSERT INTO loom.team_members VALUES ('core', 'alice')`);
    url = cluster.url('alice', 'alice-pw');
  }, 180_000);

  afterAll(async () => {
    await cluster?.destroy();
    removeDir(home);
  });

  it('prints what moved in one line; a share without a hub waits for the next sync', async () => {
    const dir = dataFolder('one-line', 2, 3);
    const first = nth(Object.keys(transcripts(dir)), 0);
    const share = await runLoom(['--data-dir', dir, '--share', first.slice(0, 8), 'core']);
    expect(share.stderr).toBe('');
    expect(share.stdout).toBe(`Queued: session ${first} will be shared with team core at the next sync.\n`);

    const run = await runLoom(['--data-dir', dir, '--sync'], { env: { LOOM_HUB: url, LOOM_DEVICE_NAME: 'laptop' } });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`Synced with hub 127.0.0.1:${cluster.port}/loom: pushed 2 sessions (6 messages).\n`);
    expect(await hubNumber(`SELECT count(*) AS n FROM loom.shares WHERE session_id = '${first}' AND team = 'core'`)).toBe(1);
    expect(await hubNumber(`SELECT count(*) AS n FROM loom.devices WHERE label = 'laptop'`)).toBe(1);
  });

  it('--share for a team the user is not in on the hub: one line, exit 1, nothing shared', async () => {
    const dir = dataFolder('not-a-member', 1, 1);
    const id = nth(Object.keys(transcripts(dir)), 0);
    const run = await runLoom(['--data-dir', dir, '--share', id, 'strangers', '--hub', url]);
    expect(run.code).toBe(1);
    expect(expectOneErrorLine(run)).toBe(`loom: You are not a member of team strangers on the hub 127.0.0.1:${cluster.port}/loom: not shared.`);
    expect(run.stdout).toContain('not shared with team strangers (you are not a member of it on the hub)');
    expect(await hubNumber(`SELECT count(*) AS n FROM loom.shares WHERE session_id = '${id}'`)).toBe(0);
  });

  it('--sync needs a hub (exit 2); a hub that is down is one line without the password (exit 1)', async () => {
    const dir = dataFolder('mistakes', 1, 1);
    const none = await runLoom(['--data-dir', dir, '--sync']);
    expect(none.code).toBe(2);
    expect(expectOneErrorLine(none)).toBe('loom: --sync needs a hub: --hub postgres://user@host/database, or LOOM_HUB set to one.');
    const down = await runLoom(['--data-dir', dir, '--sync', '--hub', 'postgres://alice:alice-pw@127.0.0.1:1/loom']);
    expect(down.code).toBe(1);
    expect(expectOneErrorLine(down)).toContain('connection refused');
    expect(down.stderr).not.toContain('alice-pw');
    expect(down.stdout).toBe('');
  });

  it('a loom --sync killed with SIGKILL mid-push, then run again: every message once on the hub, the same sessions on another device', async () => {
    const laptop = dataFolder('killed', 30, 100);
    const killedIds = Object.keys(transcripts(laptop));
    const child = spawn(process.execPath, [BIN, '--data-dir', laptop, '--sync', '--hub', url], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: home, LOOM_SYNC_PAUSE_AFTER_BATCHES: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    await new Promise<void>((resolve, reject) => {
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        if (stderr.includes('sync paused after 1 pushed batches')) resolve();
      });
      child.on('exit', () => reject(new Error(`loom --sync ended before pausing: ${stderr}`)));
    });
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const onHub = `SELECT count(*) AS n FROM loom.entries WHERE session_id = ANY(ARRAY['${killedIds.join("','")}']::uuid[])`;
    expect(await hubNumber(onHub)).toBe(PUSH_BATCH - killedIds.length);

    const again = await runLoom(['--data-dir', laptop, '--sync', '--hub', url]);
    expect(again.stderr).toBe('');
    // Turning sync on queued 30 sessions before their 3,000 messages: the first batch held all of them and 1,970 messages.
    expect(again.stdout).toContain('pushed 11 sessions (1030 messages)');
    expect(await hubNumber(onHub)).toBe(3_000);
    expect(
      await hubNumber(
        `SELECT count(*) AS n FROM (SELECT DISTINCT session_id, seq FROM loom.entries) x WHERE session_id = ANY(ARRAY['${killedIds.join("','")}']::uuid[])`,
      ),
    ).toBe(3_000);

    const desktop = path.join(home, 'desktop');
    expect((await runLoom(['--data-dir', desktop, '--sync', '--hub', url])).code).toBe(0);
    const mine = transcripts(laptop);
    const theirs = transcripts(desktop);
    for (const id of killedIds) expect(theirs[id]).toEqual(mine[id]);
  });
});
