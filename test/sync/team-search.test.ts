/**
 * Team search (`loom --search QUERY --hub`) against a real hub: PostgreSQL full-text over
 * the sessions the role may read (docs/DESIGN.md#team-search). alice has a private session
 * and one shared with team `core`; bob is in `core`.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseHubUrl } from '../../src/core/sync/hub-connection';
import { initHub } from '../../src/core/sync/hub-init';
import { searchHub } from '../../src/core/sync/team-search';
import { buildLoom, runLoom } from '../cli/run-loom';
import { nth, take } from '../support/elements';
import { hubSessionSql, TEST_DEVICE } from '../support/hub-sessions';
import { describeWithHub } from '../support/hub-suite';
import { startTestCluster, type TestCluster } from '../support/postgres';

const SHARED = '22222222-2222-4222-8222-222222222222';
const PRIVATE = '11111111-1111-4111-8111-111111111111';
const TITLED = '44444444-4444-4444-8444-444444444444';
const ARCHIVED = '55555555-5555-4555-8555-555555555555';
const DELETED = '66666666-6666-4666-8666-666666666666';
const QUASAR = '88888888-8888-4888-8888-888888888888';

let cluster: TestCluster;
const aliceUrl = () => cluster.url('alice', 'alice-pw');
const bobUrl = () => cluster.url('bob', 'bob-pw');

describeWithHub('team search on the hub', () => {
  beforeAll(async () => {
    [cluster] = await Promise.all([startTestCluster(), buildLoom()]);
    await initHub(parseHubUrl(cluster.ownerUrl));
    await cluster.createUser('alice', 'alice-pw');
    await cluster.createUser('bob', 'bob-pw');
    await cluster.admin(`INSERT INTO loom.team_members (team, member) VALUES ('core', 'alice'), ('core', 'bob')`);
    const sessions = [
      {
        id: SHARED,
        title: 'Parser fix',
        seq: 1,
        messages: ['The tokenizer crashes on unicode input.', 'Fixed: the tokenizer now reads code points, not bytes.'],
      },
      { id: PRIVATE, title: 'Salary review', seq: 2, messages: ['The private payroll figures, and a tokenizer aside.'] },
      { id: TITLED, title: 'Tokenizer rewrite plan', seq: 3, messages: ['Start from the grammar.'] },
      { id: ARCHIVED, title: 'Old notes', seq: 4, archived: true, messages: ['An archived tokenizer note.'] },
      { id: DELETED, title: 'Gone', seq: 5, deleted: true, messages: ['A deleted tokenizer note.'] },
    ];
    const shares = [SHARED, TITLED, ARCHIVED, DELETED].map((id) => `INSERT INTO loom.shares (session_id, team, hub_seq) VALUES ('${id}', 'core', 6);`);
    const alice = await cluster.psql('alice', 'alice-pw', `BEGIN; ${sessions.map(hubSessionSql).join('\n')} ${shares.join('\n')} COMMIT;`);
    expect(alice.stderr).toBe('');
  }, 120_000);

  afterAll(async () => {
    await cluster?.destroy();
  });

  it("bob's search finds the shared session with its snippet, never alice's private one", async () => {
    const run = await runLoom(['--search', 'tokenizer', '--hub', bobUrl()]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^ID\s+TITLE\s+OWNER\s+UPDATED/);
    expect(run.stdout).toContain(SHARED);
    expect(run.stdout).toMatch(/Parser fix\s+alice/);
    expect(run.stdout).toContain('[tokenizer]');
    expect(run.stdout).not.toContain(PRIVATE);
    expect(run.stdout).not.toContain('payroll');
  });

  it("alice's own search finds her private session too", async () => {
    const hits = await searchHub(parseHubUrl(aliceUrl()), 'payroll', { limit: 10 });
    expect(hits.map((hit) => [hit.sessionId, hit.title, hit.owner])).toEqual([[PRIVATE, 'Salary review', 'alice']]);
    expect(nth(hits, 0).snippet).toContain('[payroll]');
    expect(await searchHub(parseHubUrl(bobUrl()), 'payroll', { limit: 10 })).toEqual([]);
  });

  it('one hit per session, a title match first; archived only when asked; deleted never', async () => {
    const hits = await searchHub(parseHubUrl(bobUrl()), 'tokenizer', { limit: 10 });
    expect(hits.map((hit) => hit.sessionId)).toEqual([TITLED, SHARED]);
    const withArchived = await searchHub(parseHubUrl(bobUrl()), 'tokenizer', { limit: 10, includeArchived: true });
    expect(withArchived.map((hit) => hit.sessionId).sort()).toEqual([ARCHIVED, SHARED, TITLED].sort());
    const page = await searchHub(parseHubUrl(bobUrl()), 'tokenizer', { limit: 1, offset: 1 });
    expect(page.map((hit) => hit.sessionId)).toEqual([SHARED]);
  });

  it("finds a shared session even when a thousand of alice's private messages rank above it", async () => {
    const crowd = `INSERT INTO loom.sessions (id, created_at, title, origin_device, hub_seq)
                   VALUES ('77777777-7777-4777-8777-777777777777', 'now', 'Crowd', '${TEST_DEVICE}', 7);
                   INSERT INTO loom.bodies (hash, body, search)
                   SELECT 'crowd-' || g, '{"role":"user","content":"quasar quasar quasar"}', to_tsvector('english', 'quasar quasar quasar') FROM generate_series(1, 1500) g;
                   INSERT INTO loom.entries (session_id, seq, body_hash, device_id, device_seq, hub_seq)
                   SELECT '77777777-7777-4777-8777-777777777777', g, 'crowd-' || g, '${TEST_DEVICE}', 10000 + g, 7 FROM generate_series(1, 1500) g;
                   ${hubSessionSql({ id: QUASAR, title: 'Telescope notes', seq: 8, messages: ['One quasar, seen once.'] })}
                   INSERT INTO loom.shares (session_id, team, hub_seq) VALUES ('${QUASAR}', 'core', 8);`;
    expect((await cluster.psql('alice', 'alice-pw', `BEGIN; ${crowd} COMMIT;`)).stderr).toBe('');
    const hits = await searchHub(parseHubUrl(bobUrl()), 'quasar', { limit: 10 });
    expect(hits.map((hit) => hit.sessionId)).toEqual([QUASAR]);
    expect((await searchHub(parseHubUrl(aliceUrl()), 'quasar', { limit: 10 })).map((hit) => hit.sessionId)).toEqual([
      '77777777-7777-4777-8777-777777777777',
      QUASAR,
    ]);
  });

  it('pages of sessions that rank the same follow one order, the one a plain query under row-level security gives', async () => {
    // 300 of alice's sessions, one message each, all ranking the same for "nebula"; bob reads every second one.
    const tied = `INSERT INTO loom.sessions (id, created_at, title, origin_device, hub_seq)
                  SELECT ('aaaaaaaa-0000-4000-8000-' || lpad(g::text, 12, '0'))::uuid, 'now', 'Tied ' || g, '${TEST_DEVICE}', 9 FROM generate_series(1, 300) g;
                  INSERT INTO loom.bodies (hash, body, search)
                  SELECT md5('tied' || g), jsonb_build_object('role', 'user', 'content', 'nebula drift ' || g), to_tsvector('english', 'nebula drift ' || g)
                    FROM generate_series(1, 300) g;
                  INSERT INTO loom.entries (session_id, seq, body_hash, device_id, device_seq, hub_seq)
                  SELECT ('aaaaaaaa-0000-4000-8000-' || lpad(g::text, 12, '0'))::uuid, 1, md5('tied' || g), '${TEST_DEVICE}', 20000 + g, 9 FROM generate_series(1, 300) g;
                  INSERT INTO loom.shares (session_id, team, hub_seq)
                  SELECT ('aaaaaaaa-0000-4000-8000-' || lpad(g::text, 12, '0'))::uuid, 'core', 9 FROM generate_series(2, 300, 2) g;`;
    expect((await cluster.psql('alice', 'alice-pw', `BEGIN; ${tied} COMMIT;`)).stderr).toBe('');
    // Each session ranks by its best match (a title above any message), ties broken by the body's hash and owner, then the session's id.
    const pageUnderRls = (limit: number, offset: number) => `
      SELECT s.id FROM loom.sessions s CROSS JOIN LATERAL (
        SELECT m.rank, m.hash, m.owner FROM (
          SELECT ts_rank(b.search, websearch_to_tsquery('english', 'nebula')) AS rank, b.hash, b.owner
            FROM loom.entries e JOIN loom.bodies b ON b.owner = e.owner AND b.hash = e.body_hash
           WHERE e.session_id = s.id AND b.search @@ websearch_to_tsquery('english', 'nebula')
          UNION ALL
          SELECT ts_rank(to_tsvector('english', coalesce(s.title, '')), websearch_to_tsquery('english', 'nebula')) + 1::real, NULL, NULL
           WHERE to_tsvector('english', coalesce(s.title, '')) @@ websearch_to_tsquery('english', 'nebula')) m
         ORDER BY m.rank DESC, m.hash, m.owner LIMIT 1) best
       WHERE s.deleted_hlc IS NULL AND NOT s.archived
       ORDER BY best.rank DESC, best.hash, best.owner, s.id LIMIT ${limit} OFFSET ${offset}`;
    const pages: string[][] = [];
    for (const [user, password] of [
      ['alice', 'alice-pw'],
      ['bob', 'bob-pw'],
    ] as const) {
      for (const [limit, offset] of [
        [10, 0],
        [10, 10],
        [20, 140],
        [50, 280],
      ] as const) {
        const expected = (await cluster.psql(user, password, pageUnderRls(limit, offset))).stdout.split('\n').filter(Boolean);
        const found = (await searchHub(parseHubUrl(cluster.url(user, password)), 'nebula', { limit, offset })).map((hit) => hit.sessionId);
        expect([user, limit, offset, found]).toEqual([user, limit, offset, expected]);
        pages.push(found);
      }
    }
    // alice's last page holds her last 20 sessions; bob's is empty (he reads 150); every other page is full.
    expect(pages.map((page) => page.length)).toEqual([10, 10, 20, 20, 10, 10, 10, 0]);
  });

  it('finds exactly the sessions a plain query under row-level security finds, for every user and word', { timeout: 120_000 }, async () => {
    await cluster.createUser('carol', 'carol-pw');
    const underRls = (word: string) => `
      SELECT s.id FROM loom.sessions s
       WHERE s.deleted_hlc IS NULL AND NOT s.archived
         AND (to_tsvector('english', coalesce(s.title, '')) @@ websearch_to_tsquery('english', '${word}')
              OR EXISTS (SELECT 1 FROM loom.entries e JOIN loom.bodies b ON b.owner = e.owner AND b.hash = e.body_hash
                          WHERE e.session_id = s.id AND b.search @@ websearch_to_tsquery('english', '${word}')))
       ORDER BY s.id`;
    const users = [
      ['alice', 'alice-pw'],
      ['bob', 'bob-pw'],
      ['carol', 'carol-pw'],
    ] as const;
    let nonEmpty = 0;
    for (const [user, password] of users) {
      for (const word of ['tokenizer', 'payroll', 'quasar', 'unicode', 'grammar', 'note']) {
        const expected = (await cluster.psql(user, password, underRls(word))).stdout.split('\n').filter(Boolean);
        const found = (await searchHub(parseHubUrl(cluster.url(user, password)), word, { limit: 100 })).map((hit) => hit.sessionId).sort();
        expect([user, word, found]).toEqual([user, word, expected]);
        if (found.length) nonEmpty++;
      }
    }
    expect(nonEmpty).toBeGreaterThanOrEqual(8);
  });

  it("a word only in another user's private session answers exactly as a word that exists nowhere, for every parameter", { timeout: 180_000 }, async () => {
    // Each query joins a word bob may find to one he may not: alice's private words ("payroll", a phrase of her private
    // message, her 1,500 crowd messages' "quasar" is findable through the shared QUASAR) against words in no message at all.
    const pairs = [
      ['unicode or payroll', 'unicode or xylophone'],
      ['tokenizer or payroll', 'tokenizer or xylophone'],
      ['grammar or "private payroll figures"', 'grammar or "purple xylophone chords"'],
      ['nebula or salary', 'nebula or zeppelin'],
      ['payroll', 'xylophone'],
    ] as const;
    // Every parameter at once, one psql call per user and query: each row labelled with the parameters that gave it.
    const parameters = ['1', '2', '3', '5', '200', 'NULL'].flatMap((cap) =>
      [
        [1, 0],
        [3, 0],
        [10, 2],
        [500, 0],
      ].flatMap(([limit, offset]) => [false, true].map((archived) => ({ cap, limit, offset, archived }))),
    );
    const everyParameter = (words: string) =>
      parameters
        .map(
          ({ cap, limit, offset, archived }) =>
            `(SELECT 'cap ${cap} limit ${limit} offset ${offset} archived ${archived}' AS asked, t.*
                FROM loom.team_search(current_user, '${words}', ${limit}, ${offset}, ${archived}, ${cap}) t ORDER BY t.rank DESC, t.body_hash, t.id)`,
        )
        .join(' UNION ALL ');
    for (const [user, password] of [
      ['bob', 'bob-pw'],
      ['carol', 'carol-pw'],
    ] as const) {
      for (const [secret, nowhere] of pairs) {
        const [withSecret, withNothing] = take(
          await Promise.all([secret, nowhere].map(async (words) => (await cluster.psql(user, password, everyParameter(words))).stdout.split('\n'))),
          2,
        );
        expect([user, secret, withSecret]).toEqual([user, secret, withNothing]);
        if (user === 'bob' && secret !== 'payroll') expect(withSecret.filter(Boolean).length).toBeGreaterThan(parameters.length / 2);
        for (const [limit, offset] of [
          [1, 0],
          [2, 1],
          [100, 0],
        ] as const) {
          const hub = parseHubUrl(cluster.url(user, password));
          const [withSecret, withNothing] = take(await Promise.all([secret, nowhere].map((words) => searchHub(hub, words, { limit, offset }))), 2);
          expect([user, secret, limit, offset, withSecret]).toEqual([user, secret, limit, offset, withNothing]);
        }
      }
    }
  });

  it("finds a fork by the messages it shares with its parent, up to its fork point, archived parent or not; never a private parent's", async () => {
    const [ROOT, FORK, GRANDCHILD, PRIVATE_ROOT, SHARED_FORK] = take(
      [1, 2, 3, 4, 5].map((n) => `f0f0f0f0-0000-4000-8000-00000000000${n}`),
      5,
    );
    const forks = [
      { id: ROOT, title: 'Zoo log', seq: 30, messages: ['The walrus surfaced at dawn.', 'A narwhal came by later.'] },
      { id: FORK, title: 'Zoo log', seq: 31, fork: { parentId: ROOT, at: 2 }, messages: ['The fork goes its own way.'] },
      { id: GRANDCHILD, title: 'Zoo log', seq: 32, fork: { parentId: FORK, at: 3 }, messages: [] },
      { id: PRIVATE_ROOT, title: 'Aquarium', seq: 33, messages: ['The manatee is private.'] },
      { id: SHARED_FORK, title: 'Aquarium', seq: 34, fork: { parentId: PRIVATE_ROOT, at: 2 }, messages: ['Only this part is shared.'] },
    ];
    const shares = [ROOT, FORK, GRANDCHILD, SHARED_FORK].map((id) => `INSERT INTO loom.shares (session_id, team, hub_seq) VALUES ('${id}', 'core', 35);`);
    expect((await cluster.psql('alice', 'alice-pw', `BEGIN; ${forks.map(hubSessionSql).join('\n')} ${shares.join('\n')} COMMIT;`)).stderr).toBe('');
    const found = async (words: string, includeArchived = false, url = bobUrl()) =>
      (await searchHub(parseHubUrl(url), words, { limit: 10, includeArchived })).map((hit) => hit.sessionId).sort();

    expect(await found('walrus')).toEqual([ROOT, FORK, GRANDCHILD].sort());
    const grandchildHit = (await searchHub(parseHubUrl(bobUrl()), 'walrus', { limit: 10 })).find((hit) => hit.sessionId === GRANDCHILD);
    expect(grandchildHit?.snippet).toContain('[walrus]');
    // The narwhal came after the fork point: the root's only. The fork's own message is its and its child's.
    expect(await found('narwhal')).toEqual([ROOT]);
    expect(await found('"own way"')).toEqual([FORK, GRANDCHILD].sort());
    // A fork shared with the team shows none of its private parent's messages to the team.
    expect(await found('manatee')).toEqual([]);
    expect(await found('manatee', false, aliceUrl())).toEqual([PRIVATE_ROOT, SHARED_FORK].sort());

    expect((await cluster.psql('alice', 'alice-pw', `UPDATE loom.sessions SET archived = true WHERE id = '${ROOT}'`)).stderr).toBe('');
    expect(await found('walrus')).toEqual([FORK, GRANDCHILD].sort());
    expect(await found('walrus', true)).toEqual([ROOT, FORK, GRANDCHILD].sort());
    expect(await found('narwhal')).toEqual([]);
  });

  it('--json gives the hits for scripts; a bare --hub takes LOOM_HUB', async () => {
    const run = await runLoom(['--search', 'unicode', '--hub', '--json'], { env: { LOOM_HUB: bobUrl() } });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([
      { id: SHARED, title: 'Parser fix', owner: 'alice', updated_at: '2026-11-30T10:00:00.000Z', snippet: expect.stringContaining('[unicode]') as string },
    ]);
  });

  it('no match says so, naming the hub', async () => {
    const run = await runLoom(['--search', 'xylophone', '--hub', bobUrl()]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`No sessions on the hub 127.0.0.1:${cluster.port}/loom match "xylophone".\n`);
  });
});

it('--hub without a URL nor LOOM_HUB is a usage error, and --hub needs --search', async () => {
  await buildLoom();
  const bare = await runLoom(['--search', 'tokenizer', '--hub']);
  expect(bare.code).toBe(2);
  expect(bare.stderr).toBe('loom: --hub needs a hub URL (--hub postgres://user@host/database), or LOOM_HUB set to one.\n');
  const alone = await runLoom(['--hub', 'postgres://a@127.0.0.1/loom', '--list-sessions']);
  expect(alone.code).toBe(2);
  expect(alone.stderr).toBe('loom: --hub only applies to --search, --sync or --share.\n');
}, 120_000);
