/**
 * `loom --hub-init URL` against a real PostgreSQL cluster (test/support/postgres.ts): the
 * schema is created once, a second run changes nothing, a newer hub is left alone, and
 * every refusal — no schema, a wrong password, a role that is no Loom user, no TLS to a
 * remote host — is one line without the password.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkHubSchema, connectHub, parseHubUrl } from '../../src/core/sync/hub-connection';
import { initHub } from '../../src/core/sync/hub-init';
import { HUB_MIGRATIONS, HUB_SCHEMA_VERSION } from '../../src/core/sync/hub-schema';
import { buildLoom, expectOneErrorLine, makeTempDir, removeDir, runLoom } from '../cli/run-loom';
import { nth } from '../support/elements';
import { describeWithHub } from '../support/hub-suite';
import { HUB_OWNER, startTestCluster, SUPERUSER_PASSWORD, type TestCluster } from '../support/postgres';

let cluster: TestCluster;

beforeAll(buildLoom, 120_000);

/** The number of rows in every table of the hub's schema, and its version. */
async function hubSnapshot(): Promise<Record<string, string>> {
  const tables = await cluster.admin(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'loom' ORDER BY table_name`);
  const snapshot: Record<string, string> = {};
  for (const { table_name } of tables.rows as Array<{ table_name: string }>) {
    const count = await cluster.admin(`SELECT count(*)::text AS n FROM loom.${table_name}`);
    snapshot[table_name] = (count.rows[0] as { n: string }).n;
  }
  const meta = await cluster.admin(`SELECT string_agg(key || '=' || value, ',' ORDER BY key) AS meta FROM loom.hub_meta`);
  snapshot.meta = (meta.rows[0] as { meta: string }).meta;
  return snapshot;
}

describeWithHub('loom --hub-init and connecting to a hub', () => {
  beforeAll(async () => {
    cluster = await startTestCluster();
  }, 120_000);

  afterAll(async () => {
    await cluster?.destroy();
  });

  it('a hub without the schema tells a user to run --hub-init, and --hub-init then creates it', async () => {
    await cluster.createUser('early', 'early-pw', { loomUser: false });
    const search = await runLoom(['--search', 'anything', '--hub', cluster.url('early', 'early-pw')]);
    expect(search.code).toBe(1);
    expect(expectOneErrorLine(search)).toContain(`has no Loom schema yet: run loom --hub-init postgres://early@127.0.0.1:${cluster.port}/loom`);

    const init = await runLoom(['--hub-init', cluster.ownerUrl]);
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    expect(init.stdout).toContain(`Created Loom's schema (version ${HUB_SCHEMA_VERSION}) on the hub 127.0.0.1:${cluster.port}/loom`);
    const tables = await cluster.admin(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'loom' ORDER BY 1`);
    expect(tables.rows.map((row) => (row as { table_name: string }).table_name)).toEqual([
      'bodies',
      'clock',
      'conflicts',
      'devices',
      'entries',
      'hub_meta',
      'records',
      'sessions',
      'shares',
      'team_members',
    ]);
    const forced = await cluster.admin(
      `SELECT relname FROM pg_class WHERE relnamespace = 'loom'::regnamespace AND relkind = 'r' AND relrowsecurity AND relforcerowsecurity ORDER BY 1`,
      [],
      'loom',
    );
    expect(forced.rows.map((row) => (row as { relname: string }).relname)).toEqual([
      'bodies',
      'conflicts',
      'devices',
      'entries',
      'records',
      'sessions',
      'shares',
      'team_members',
    ]);
  });

  it('a second --hub-init says the hub is already at the version and changes nothing', async () => {
    await initHub(parseHubUrl(cluster.ownerUrl));
    const before = await hubSnapshot();
    const again = await runLoom(['--hub-init', cluster.ownerUrl]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`is already at schema version ${HUB_SCHEMA_VERSION}; nothing to do.`);
    expect(await hubSnapshot()).toEqual(before);
  });

  it('two --hub-init at once on a new hub: one creates the schema, the other finds it done', async () => {
    await cluster.admin(`CREATE DATABASE twice OWNER ${HUB_OWNER}`, [], 'postgres');
    const url = cluster.ownerUrl.replace(/\/loom$/, '/twice');
    const both = await Promise.all([runLoom(['--hub-init', url]), runLoom(['--hub-init', url])]);
    expect(both.map((run) => run.stderr)).toEqual(['', '']);
    const lines = both.map((run) => run.stdout).sort();
    expect(lines[0]).toContain("Created Loom's schema (version");
    expect(lines[1]).toContain('is already at schema version');
  });

  it('a Loom user connects and passes the schema check; the hub id stays the same', async () => {
    await initHub(parseHubUrl(cluster.ownerUrl));
    await cluster.createUser('dora', 'dora-pw');
    const client = await connectHub(parseHubUrl(cluster.url('dora', 'dora-pw')));
    try {
      const first = await checkHubSchema(client);
      expect(first.version).toBe(HUB_SCHEMA_VERSION);
      expect(first.hubId).toMatch(/^[0-9a-f-]{36}$/);
      await initHub(parseHubUrl(cluster.ownerUrl));
      expect((await checkHubSchema(client)).hubId).toBe(first.hubId);
    } finally {
      await client.end();
    }
  });

  it('a hub with a newer schema gets one line from --hub-init and from a search, and nothing is written', async () => {
    await initHub(parseHubUrl(cluster.ownerUrl));
    await cluster.createUser('erin', 'erin-pw');
    await cluster.admin(`UPDATE loom.hub_meta SET value = '${HUB_SCHEMA_VERSION + 2}' WHERE key = 'schema_version'`);
    try {
      const before = await hubSnapshot();
      const init = await runLoom(['--hub-init', cluster.ownerUrl]);
      expect(init.code).toBe(1);
      expect(expectOneErrorLine(init)).toBe(
        `loom: The hub at postgres://hub_owner@127.0.0.1:${cluster.port}/loom has schema version ${HUB_SCHEMA_VERSION + 2}; this Loom supports up to ${HUB_SCHEMA_VERSION}. Update Loom.`,
      );
      const search = await runLoom(['--search', 'parser', '--hub', cluster.url('erin', 'erin-pw')]);
      expect(search.code).toBe(1);
      expect(expectOneErrorLine(search)).toContain(
        `has schema version ${HUB_SCHEMA_VERSION + 2}; this Loom supports up to ${HUB_SCHEMA_VERSION}. Update Loom.`,
      );
      expect(await hubSnapshot()).toEqual(before);
    } finally {
      await cluster.admin(`UPDATE loom.hub_meta SET value = '${HUB_SCHEMA_VERSION}' WHERE key = 'schema_version'`);
    }
  });

  it('a hub at an older schema version asks for --hub-init, as a user sees it', async () => {
    await initHub(parseHubUrl(cluster.ownerUrl));
    await cluster.createUser('olga', 'olga-pw');
    await cluster.admin(`UPDATE loom.hub_meta SET value = '0' WHERE key = 'schema_version'`);
    const search = await runLoom(['--search', 'parser', '--hub', cluster.url('olga', 'olga-pw')]);
    expect(expectOneErrorLine(search)).toBe(
      `loom: The hub at postgres://olga@127.0.0.1:${cluster.port}/loom has schema version 0; run loom --hub-init postgres://olga@127.0.0.1:${cluster.port}/loom to bring it to version ${HUB_SCHEMA_VERSION}.`,
    );
    // Put back: the init's own upgrade path is the migrations', run from version 0 by the first test.
    await cluster.admin(`UPDATE loom.hub_meta SET value = '${HUB_SCHEMA_VERSION}' WHERE key = 'schema_version'`);
  });

  it('--hub-init upgrades a version-1 hub: team search then counts only readable messages and finds forks, and users may still call it', async () => {
    await initHub(parseHubUrl(cluster.ownerUrl));
    const v1 = nth(HUB_MIGRATIONS, 0).statements.find((sql) => sql.startsWith('CREATE FUNCTION loom.team_search('));
    await cluster.admin(
      `${(v1 ?? '').replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION')}; DROP INDEX loom.sessions_fork_parent;
       UPDATE loom.hub_meta SET value = '1' WHERE key = 'schema_version'`,
    );
    const definition = async () => String((await cluster.admin(`SELECT pg_get_functiondef('loom.team_search'::regproc) AS d`)).rows[0].d);
    expect(await definition()).not.toContain('e.body_hash = b.hash');
    const upgrade = await runLoom(['--hub-init', cluster.ownerUrl]);
    expect(upgrade.stderr).toBe('');
    expect(upgrade.stdout).toBe(`Upgraded the hub 127.0.0.1:${cluster.port}/loom from schema version 1 to ${HUB_SCHEMA_VERSION}.\n`);
    expect(await definition()).toContain('e.body_hash = b.hash');
    // Version 3: forks are found by the entries they share.
    expect(await definition()).toContain('f.fork_at > e.seq');
    await cluster.createUser('petra', 'petra-pw');
    const search = await runLoom(['--search', 'anything', '--hub', cluster.url('petra', 'petra-pw')]);
    expect(search.stderr).toBe('');
    expect(search.stdout).toContain('No sessions on the hub');
  });

  it('a wrong password is one line that never shows the password, from the URL or from PGPASSWORD', async () => {
    await initHub(parseHubUrl(cluster.ownerUrl));
    await cluster.createUser('frank', 'right-pw-frank');
    const secret = 'Wr0ng-s3cret-Pa55';
    const inUrl = await runLoom(['--search', 'parser', '--hub', cluster.url('frank', secret)]);
    expect(inUrl.code).toBe(1);
    expect(expectOneErrorLine(inUrl)).toBe(`loom: The hub at postgres://frank@127.0.0.1:${cluster.port}/loom refused the password for role frank.`);
    expect(inUrl.stdout + inUrl.stderr).not.toContain(secret);

    const fromEnv = await runLoom(['--hub-init', cluster.url('frank')], { env: { PGPASSWORD: secret } });
    expect(fromEnv.code).toBe(1);
    expect(expectOneErrorLine(fromEnv)).toContain('refused the password for role frank');
    expect(fromEnv.stdout + fromEnv.stderr).not.toContain(secret);

    // A wrong password with an @ in it reaches the hub (the last @ ends it) and none of it shows.
    const data = makeTempDir('loom-pw-');
    const withAt = await runLoom(['--sync', '--hub', `postgres://frank:Zq9x@Wv7k@127.0.0.1:${cluster.port}/loom`, '--data-dir', data]);
    removeDir(data);
    expect(withAt.code).toBe(1);
    expect(expectOneErrorLine(withAt)).toBe(`loom: The hub at postgres://frank@127.0.0.1:${cluster.port}/loom refused the password for role frank.`);
    expect(withAt.stdout + withAt.stderr).not.toMatch(/Zq9x|Wv7k/);
  });

  it('a role that is not a Loom user is refused with the grant that fixes it', async () => {
    await initHub(parseHubUrl(cluster.ownerUrl));
    await cluster.createUser('gina', 'gina-pw', { loomUser: false });
    const run = await runLoom(['--search', 'parser', '--hub', cluster.url('gina', 'gina-pw')]);
    expect(run.code).toBe(1);
    expect(expectOneErrorLine(run)).toBe(
      `loom: Role gina is not a Loom user on the hub at postgres://gina@127.0.0.1:${cluster.port}/loom: its owner adds it with GRANT loom_user TO gina;`,
    );
  });

  it('a superuser, whom row-level security does not bind, may not search nor sync', async () => {
    await initHub(parseHubUrl(cluster.ownerUrl));
    const run = await runLoom(['--search', 'parser', '--hub', cluster.url('postgres', SUPERUSER_PASSWORD)]);
    expect(run.code).toBe(1);
    expect(expectOneErrorLine(run)).toBe(
      `loom: Role postgres is a superuser on the hub at postgres://postgres@127.0.0.1:${cluster.port}/loom, which row-level security does not bind: sync as a Loom user role.`,
    );
  });

  it('--hub-init as a Loom user is refused: the owner policies would let it read every session', async () => {
    await initHub(parseHubUrl(cluster.ownerUrl));
    await cluster.createUser('hank', 'hank-pw');
    const before = await hubSnapshot();
    const run = await runLoom(['--hub-init', cluster.url('hank', 'hank-pw')]);
    expect(run.code).toBe(1);
    expect(expectOneErrorLine(run)).toContain('Role hank is a Loom user (in loom_user); run loom --hub-init');
    expect(await hubSnapshot()).toEqual(before);
  });

  it('--hub-add-member puts a Loom user in a team, once; a role that is no Loom user, or a user who is not the owner, is one line', async () => {
    await initHub(parseHubUrl(cluster.ownerUrl));
    await cluster.createUser('ivan', 'ivan-pw');
    await cluster.createUser('jill', 'jill-pw', { loomUser: false });
    const where = `on the hub 127.0.0.1:${cluster.port}/loom`;
    const added = await runLoom(['--hub-add-member', cluster.ownerUrl, 'core', 'ivan']);
    expect(added.stderr).toBe('');
    expect(added.stdout).toBe(`Added ivan to team core ${where}; they now read the sessions shared with it.\n`);
    const again = await runLoom(['--hub-add-member', cluster.ownerUrl, 'core', 'ivan']);
    expect(again.stdout).toBe(`ivan is already in team core ${where}.\n`);
    const members = await cluster.admin(`SELECT team, member FROM loom.team_members WHERE member = 'ivan'`);
    expect(members.rows).toEqual([{ team: 'core', member: 'ivan' }]);

    const notUser = await runLoom(['--hub-add-member', cluster.ownerUrl, 'core', 'jill']);
    expect(notUser.code).toBe(1);
    expect(expectOneErrorLine(notUser)).toContain('Role jill is not a Loom user on the hub at postgres://hub_owner@');
    expect(notUser.stderr).toContain('make it one first: GRANT loom_user TO jill;');
    const unknown = await runLoom(['--hub-add-member', cluster.ownerUrl, 'core', 'nobody']);
    expect(expectOneErrorLine(unknown)).toContain("CREATE ROLE nobody LOGIN PASSWORD '…' IN ROLE loom_user;");

    const byUser = await runLoom(['--hub-add-member', cluster.url('ivan', 'ivan-pw'), 'core', 'ivan']);
    expect(byUser.code).toBe(1);
    expect(expectOneErrorLine(byUser)).toContain('refused role ivan: permission denied for table team_members');
    expect((await cluster.admin(`SELECT count(*)::int AS n FROM loom.team_members WHERE member IN ('jill', 'nobody')`)).rows).toEqual([{ n: 0 }]);
  });

  it('a URL asking for TLS from a hub that offers none is one line', async () => {
    const run = await runLoom(['--hub-init', `${cluster.ownerUrl}?sslmode=require`]);
    expect(run.code).toBe(1);
    expect(expectOneErrorLine(run)).toBe(
      `loom: The hub at postgres://hub_owner@127.0.0.1:${cluster.port}/loom?sslmode=require does not offer TLS, which Loom needs for it.`,
    );
  });

  it('a hub that stops is unreachable in one line, and answers again once it is back', async () => {
    await initHub(parseHubUrl(cluster.ownerUrl));
    await cluster.stop();
    try {
      const down = await runLoom(['--hub-init', cluster.ownerUrl]);
      expect(expectOneErrorLine(down)).toBe(`loom: Hub unreachable at postgres://hub_owner@127.0.0.1:${cluster.port}/loom (connection refused).`);
    } finally {
      await cluster.start();
    }
    expect((await runLoom(['--hub-init', cluster.ownerUrl])).stdout).toContain('nothing to do');
  });

  it('a hub that is down is one line naming the hub', async () => {
    const run = await runLoom(['--hub-init', `postgres://hub_owner:pw@127.0.0.1:1/loom`]);
    expect(run.code).toBe(1);
    expect(expectOneErrorLine(run)).toBe('loom: Hub unreachable at postgres://hub_owner@127.0.0.1:1/loom (connection refused).');
  });
});

it('a host that is not loopback needs TLS with its certificate checked: less is refused before connecting', async () => {
  const run = await runLoom(['--hub-init', 'postgres://alice:Sup3rSecret@hub.example.com/loom?sslmode=require']);
  expect(run.code).toBe(2);
  expect(expectOneErrorLine(run)).toBe(
    'loom: The hub at postgres://alice:***@hub.example.com/loom?sslmode=require is not on this machine, so Loom needs TLS with its certificate checked: use sslmode=verify-full (the default), not sslmode=require.',
  );
  expect(run.stderr).not.toContain('Sup3rSecret');
});

it('a password with /, #, ? or @ is never printed, whole or in part, by any hub command', async () => {
  const data = makeTempDir('loom-pw-');
  for (const password of ['Zq9x/Wv7k', 'Zq9x#Wv7k', 'Zq9x?Wv7k', '1234/Wv7k', 'Zq9x@Wv7k/']) {
    const url = `postgres://alice:${password}@127.0.0.1:1/loom`;
    for (const args of [
      ['--hub-init', url],
      ['--search', 'x', '--hub', url],
      ['--sync', '--hub', url],
      ['--hub-add-member', url, 'core', 'bob'],
    ]) {
      const run = await runLoom([...args, '--data-dir', data]);
      expect([args[0], password, run.code]).toEqual([args[0], password, 2]);
      expect(expectOneErrorLine(run)).toContain('postgres://alice:***@127.0.0.1:1/loom has a password with a /, ?, # or @ that is not percent-encoded');
      expect(run.stdout + run.stderr).not.toMatch(/Zq9x|Wv7k|1234/);
    }
  }
  removeDir(data);
}, 120_000);
