/**
 * The hub's privacy, checked the way the issue asks: `psql` under each user's own role
 * against a real PostgreSQL (docs/DESIGN.md#who-may-read-what-roles-and-row-level-security).
 * alice owns a private session and one shared with team `core`; bob is in `core`; carol
 * is in no team. Row-level security alone decides what each one reads and writes.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseHubUrl } from '../../src/core/sync/hub-connection';
import { initHub } from '../../src/core/sync/hub-init';
import { bodyHash, hubSessionSql, TEST_DEVICE } from '../support/hub-sessions';
import { describeWithHub } from '../support/hub-suite';
import { startTestCluster, type TestCluster } from '../support/postgres';

const PRIVATE = '11111111-1111-4111-8111-111111111111';
const SHARED = '22222222-2222-4222-8222-222222222222';
const PASSWORDS = { alice: 'alice-pw-71', bob: 'bob-pw-72', carol: 'carol-pw-73' } as const;
type User = keyof typeof PASSWORDS;
const PRIVATE_WORDS = 'the private payroll figures';
const PRIVATE_HASH = bodyHash(PRIVATE_WORDS);

let cluster: TestCluster;

/** psql as `user`; the rows it printed (unaligned, one per line), or a failure with psql's error. */
async function as(user: User, sql: string): Promise<string[]> {
  const result = await cluster.psql(user, PASSWORDS[user], sql);
  if (result.code !== 0) throw new Error(result.stderr.trim());
  return result.stdout.split('\n').filter(Boolean);
}

/** A session of alice's with one message, and one record. */
function aliceSession(id: string, title: string, words: string, seq: number): string {
  return `${hubSessionSql({ id, title, messages: [words], seq })}
    INSERT INTO loom.records (device_id, device_seq, session_id, kind, body, hub_seq) VALUES ('${TEST_DEVICE}', ${seq + 100}, '${id}', 'model_change', '{}', ${seq});`;
}

describeWithHub('row-level security on the hub, checked with psql under each role', () => {
  beforeAll(async () => {
    cluster = await startTestCluster();
    await initHub(parseHubUrl(cluster.ownerUrl));
    for (const user of Object.keys(PASSWORDS) as User[]) await cluster.createUser(user, PASSWORDS[user]);
    const owner = await cluster.psql('hub_owner', 'owner-pw-3f9c', `INSERT INTO loom.team_members (team, member) VALUES ('core', 'alice'), ('core', 'bob')`);
    expect(owner.stderr).toBe('');
    await as(
      'alice',
      `BEGIN;
       ${aliceSession(PRIVATE, 'Salary review', PRIVATE_WORDS, 1)}
       ${aliceSession(SHARED, 'Parser fix', 'the tokenizer crashed on unicode', 2)}
       INSERT INTO loom.shares (session_id, team, hub_seq) VALUES ('${SHARED}', 'core', 3);
       UPDATE loom.clock SET seq = 3;
       COMMIT;`,
    );
  }, 120_000);

  afterAll(async () => {
    await cluster?.destroy();
  });

  it('alice reads both of her sessions', async () => {
    expect(await as('alice', 'SELECT title FROM loom.sessions ORDER BY title')).toEqual(['Parser fix', 'Salary review']);
    expect(await as('alice', 'SELECT count(*) FROM loom.bodies')).toEqual(['2']);
  });

  it('bob, her teammate, reads only the shared session, its entries, records and bodies', async () => {
    expect(await as('bob', 'SELECT id, title, owner FROM loom.sessions')).toEqual([`${SHARED}|Parser fix|alice`]);
    expect(await as('bob', 'SELECT DISTINCT session_id FROM loom.entries')).toEqual([SHARED]);
    expect(await as('bob', 'SELECT DISTINCT session_id FROM loom.records')).toEqual([SHARED]);
    expect(await as('bob', `SELECT body->>'content' FROM loom.bodies`)).toEqual(['the tokenizer crashed on unicode']);
    expect(await as('bob', `SELECT session_id, team FROM loom.shares`)).toEqual([`${SHARED}|core`]);
  });

  it("bob cannot read alice's private body even knowing its hash, nor find it by full-text search", async () => {
    expect(await as('alice', `SELECT count(*) FROM loom.bodies WHERE hash = '${PRIVATE_HASH}'`)).toEqual(['1']);
    expect(await as('bob', `SELECT body FROM loom.bodies WHERE hash = '${PRIVATE_HASH}'`)).toEqual([]);
    expect(await as('bob', `SELECT hash FROM loom.bodies WHERE search @@ to_tsquery('english', 'payroll')`)).toEqual([]);
    expect(await as('bob', `SELECT count(*) FROM loom.entries WHERE body_hash = '${PRIVATE_HASH}'`)).toEqual(['0']);
  });

  it("bob reads his own team memberships only, not the other members'", async () => {
    expect(await as('bob', 'SELECT team, member FROM loom.team_members')).toEqual(['core|bob']);
  });

  it("bob cannot change alice's rows: updates and deletes reach nothing, inserts in her name are refused", async () => {
    expect(await as('bob', `UPDATE loom.sessions SET title = 'Hijacked' WHERE id = '${SHARED}' RETURNING id`)).toEqual([]);
    expect(await as('bob', `DELETE FROM loom.entries WHERE session_id = '${SHARED}' RETURNING seq`)).toEqual([]);
    expect(await as('bob', `DELETE FROM loom.sessions WHERE id = '${SHARED}' RETURNING id`)).toEqual([]);
    await expect(
      as('bob', `INSERT INTO loom.sessions (id, owner, created_at, origin_device, hub_seq) VALUES (gen_random_uuid(), 'alice', 'now', '${TEST_DEVICE}', 9)`),
    ).rejects.toThrow(/row-level security/);
    await expect(
      as('bob', `INSERT INTO loom.entries (session_id, seq, body_hash, device_id, device_seq, hub_seq) VALUES ('${SHARED}', 2, 'x', '${TEST_DEVICE}', 50, 9)`),
    ).rejects.toThrow(/row-level security/);
    expect(await as('alice', `SELECT title FROM loom.sessions WHERE id = '${SHARED}'`)).toEqual(['Parser fix']);
    expect(await as('alice', `SELECT count(*) FROM loom.entries`)).toEqual(['2']);
  });

  it("bob cannot take the keys of alice's device, read off her shared session, for rows of his own", async () => {
    const device = (await as('bob', `SELECT DISTINCT device_id FROM loom.records WHERE session_id = '${SHARED}'`))[0];
    expect(device).toBe(TEST_DEVICE);
    const bobs = '99999999-9999-4999-8999-999999999999';
    await as('bob', `INSERT INTO loom.sessions (id, created_at, origin_device, hub_seq) VALUES ('${bobs}', 'now', '${device}', 9)`);
    await expect(
      as(
        'bob',
        `INSERT INTO loom.records (device_id, device_seq, session_id, kind, body, hub_seq) VALUES ('${device}', 500, '${bobs}', 'model_change', '{}', 9)`,
      ),
    ).rejects.toThrow(/row-level security/);
    await expect(
      as('bob', `INSERT INTO loom.entries (session_id, seq, body_hash, device_id, device_seq, hub_seq) VALUES ('${bobs}', 1, 'x', '${device}', 500, 9)`),
    ).rejects.toThrow(/row-level security/);
    await expect(as('bob', `INSERT INTO loom.devices (device_id, label) VALUES ('${device}', 'mine now')`)).rejects.toThrow(/duplicate key|row-level security/);
  });

  it("bob cannot share alice's session, nor add anyone to a team", async () => {
    await expect(as('bob', `INSERT INTO loom.shares (session_id, team, hub_seq) VALUES ('${PRIVATE}', 'core', 9)`)).rejects.toThrow(/row-level security/);
    await expect(as('bob', `INSERT INTO loom.team_members (team, member) VALUES ('core', 'carol')`)).rejects.toThrow(/permission denied/);
  });

  it('the clock every user takes hub_seqs from only moves forward, a push at a time', async () => {
    const before = Number((await as('bob', 'SELECT seq FROM loom.clock'))[0]);
    await expect(as('bob', 'UPDATE loom.clock SET seq = 0')).rejects.toThrow('loom.clock only moves forward');
    await expect(as('bob', 'UPDATE loom.clock SET seq = seq + 100000000')).rejects.toThrow('loom.clock only moves forward');
    await expect(as('bob', 'DELETE FROM loom.clock')).rejects.toThrow(/permission denied/);
    expect(await as('bob', 'UPDATE loom.clock SET seq = seq + 5 RETURNING seq')).toEqual([String(before + 5)]);
  });

  it('alice can share only with a team she is in', async () => {
    await expect(as('alice', `INSERT INTO loom.shares (session_id, team, hub_seq) VALUES ('${PRIVATE}', 'finance', 9)`)).rejects.toThrow(/row-level security/);
  });

  it("team search's matching function, called straight, returns only what the caller may read", async () => {
    const search = (word: string, reader = 'current_user') => `SELECT id FROM loom.team_search(${reader}, '${word}', 50, 0, true, 1000) ORDER BY id`;
    expect(await as('alice', search('payroll'))).toEqual([PRIVATE]);
    expect(await as('bob', search('payroll'))).toEqual([]);
    expect(await as('bob', search('tokenizer'))).toEqual([SHARED]);
    expect(await as('carol', search('tokenizer'))).toEqual([]);
    // Naming another reader gets nothing: bob may not act as alice.
    expect(await as('bob', search('payroll', "'alice'"))).toEqual([]);
    await cluster.createUser('dave', 'dave-pw', { loomUser: false });
    const outsider = await cluster.psql('dave', 'dave-pw', search('tokenizer'));
    expect(outsider.stderr).toMatch(/permission denied for (schema loom|function team_search)/);
    expect(outsider.stdout).toBe('');
  });

  it('carol, in no team, reads nothing of alice', async () => {
    for (const table of ['sessions', 'entries', 'records', 'bodies', 'shares', 'team_members', 'devices', 'conflicts']) {
      expect([table, await as('carol', `SELECT count(*) FROM loom.${table}`)]).toEqual([table, ['0']]);
    }
  });

  it("a member added to the team later sees its shared sessions, moved past every device's cursor", async () => {
    const before = Number((await as('alice', `SELECT hub_seq FROM loom.sessions WHERE id = '${SHARED}'`))[0]);
    await cluster.psql('hub_owner', 'owner-pw-3f9c', `INSERT INTO loom.team_members (team, member) VALUES ('core', 'carol')`);
    expect(await as('carol', 'SELECT title FROM loom.sessions')).toEqual(['Parser fix']);
    const after = Number((await as('carol', `SELECT hub_seq FROM loom.sessions WHERE id = '${SHARED}'`))[0]);
    expect(after).toBeGreaterThan(before);
    expect(await as('carol', 'SELECT seq FROM loom.clock')).toEqual([String(after)]);
    expect(await as('alice', `SELECT hub_seq FROM loom.sessions WHERE id = '${PRIVATE}'`)).toEqual(['1']);
  });
});
