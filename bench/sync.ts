/**
 * Sync through a PostgreSQL hub (docs/DESIGN.md#sync-through-a-hub), on a throw-away
 * cluster made like the tests' (test/support/postgres.ts). Each row is one HubBenchRow:
 * to add one, write a function that measures on the cluster and add it to HUB_ROWS under a name.
 *
 * Team search: a hub of 100,000 sessions (5 messages each) of two users, half of one
 * user's sessions shared with the other's team; the searcher reads 70,000 of them through
 * row-level security. Timed end to end as `loom --search --hub` runs it (connect, schema
 * check, query), for a rare word and for one in a fifth of all messages.
 *
 * Filling the hub takes minutes, so while tuning the search: BENCH_HUB_KEEP=1 leaves the
 * filled cluster running and prints its folder; BENCH_HUB_DIR=<that folder> measures the
 * team search rows on it again without filling, after re-creating loom.team_search from
 * this checkout's hub-schema.ts. Stop a kept cluster with `pg_ctl stop -D <folder>/data` as postgres.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { parseHubUrl } from '../src/core/sync/hub-connection';
import { initHub } from '../src/core/sync/hub-init';
import { HUB_MIGRATIONS } from '../src/core/sync/hub-schema';
import { searchHub } from '../src/core/sync/team-search';
import { HUB_DATABASE, startTestCluster, type TestCluster } from '../test/support/postgres';
import { formatMs, percentile, printTable, progress, type BenchSection } from './harness';
import { firstSyncRows, liveLatencyRows } from './sync-device';

/** One measured row: label, what was measured, target, whether it was met. */
export interface HubBenchResult {
  row: string;
  measured: string;
  target: string;
  met: boolean;
}

/** `filled`: the cluster was kept filled by an earlier run (BENCH_HUB_DIR). */
type HubBenchRow = (cluster: TestCluster, options: { filled: boolean }) => Promise<HubBenchResult[]>;

const SESSIONS = 100_000;
const MESSAGES_PER_SESSION = 5;
const WORDS_PER_MESSAGE = 25;
const FILL_CHUNK = 10_000;
const SEARCH_RUNS = 20;
const SEARCH_TARGET_MS = 200;
/** In 20 sessions' messages. */
const RARE_WORD = 'zanzibar';
/** In every session's first message: a fifth of all messages. */
const COMMON_WORD = 'function';
const PASSWORDS = { alice: 'bench-alice-pw', bob: 'bench-bob-pw' } as const;

/**
 * The device rows first, on a hub not yet busy with the search rows' 100,000 sessions.
 * BENCH_SYNC_ROWS=first (a comma-separated list of these names) runs only the rows it names.
 */
const HUB_ROWS: Record<string, HubBenchRow> = { first: firstSyncRows, live: liveLatencyRows, search: teamSearchRows };

function selectedRows(): HubBenchRow[] {
  const names = process.env.BENCH_SYNC_ROWS?.split(',').map((name) => name.trim().toLowerCase());
  const unknown = names?.filter((name) => !(name in HUB_ROWS));
  if (unknown?.length) throw new Error(`BENCH_SYNC_ROWS: no row named ${unknown.join(', ')} (the rows: ${Object.keys(HUB_ROWS).join(', ')})`);
  return Object.entries(HUB_ROWS)
    .filter(([name]) => !names || names.includes(name))
    .map(([, row]) => row);
}

export const syncSection: BenchSection = {
  name: 'Sync hub',
  run: runSyncBench,
};

async function runSyncBench(): Promise<void> {
  const keptDir = process.env.BENCH_HUB_DIR;
  const results: HubBenchResult[] = [];
  if (keptDir) {
    // A kept hub is already filled and has its users: only the team search rows measure on it again.
    const cluster = await reuseKeptCluster(keptDir);
    await recreateTeamSearch(cluster);
    results.push(...(await teamSearchRows(cluster, { filled: true })));
    progress(`hub: kept running in ${cluster.dir} (BENCH_HUB_DIR=${cluster.dir})`);
  } else {
    // Each row on a hub of its own, so one row's data never weighs on another's (the first sync's 400,000 messages in the team search).
    for (const row of selectedRows()) results.push(...(await onFreshHub((cluster) => row(cluster, { filled: false }))));
  }
  printTable(
    'Sync through a PostgreSQL hub',
    ['row', 'measured', 'target', 'met'],
    results.map((r) => [r.row, r.measured, r.target, r.met ? 'yes' : 'NO']),
  );
}

async function onFreshHub<T>(measure: (cluster: TestCluster) => Promise<T>): Promise<T> {
  const cluster = await startTestCluster();
  try {
    await initHub(parseHubUrl(cluster.ownerUrl));
    for (const [user, password] of Object.entries(PASSWORDS)) await cluster.createUser(user, password);
    await cluster.admin(`INSERT INTO loom.team_members (team, member) VALUES ('core', 'alice'), ('core', 'bob')`);
    return await measure(cluster);
  } finally {
    if (process.env.BENCH_HUB_KEEP) progress(`hub: kept running in ${cluster.dir} (BENCH_HUB_DIR=${cluster.dir})`);
    else await cluster.destroy();
  }
}

/** A cluster a BENCH_HUB_KEEP run left running in `dir`: reached through its socket, its port read from postmaster.pid. */
async function reuseKeptCluster(dir: string): Promise<TestCluster> {
  const port = Number(fs.readFileSync(path.join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[3]);
  const admin = async (sql: string, values?: unknown[], database = HUB_DATABASE) => {
    const client = new pg.Client({ host: path.join(dir, 'socket'), port, user: 'postgres', database });
    await client.connect();
    try {
      return await client.query(sql, values);
    } finally {
      await client.end();
    }
  };
  const url = (role: string, password?: string) => `postgres://${role}${password === undefined ? '' : `:${password}`}@127.0.0.1:${port}/${HUB_DATABASE}`;
  const unused = () => Promise.reject(new Error('not available on a kept bench cluster'));
  return { port, dir, url, ownerUrl: '', admin, createUser: unused, psql: unused, stop: unused, start: unused, destroy: unused };
}

/**
 * The kept hub's search function replaced by this checkout's, so a change to it is measured
 * without filling again; with the indexes it needs that a kept hub may predate (those made
 * IF NOT EXISTS).
 */
async function recreateTeamSearch(cluster: TestCluster): Promise<void> {
  const statements = HUB_MIGRATIONS.flatMap((migration) => migration.statements).filter(
    (sql) => sql.includes('loom.team_search(') || sql.startsWith('CREATE INDEX IF NOT EXISTS'),
  );
  await cluster.admin(
    `DROP FUNCTION IF EXISTS loom.team_search(text, text, integer, integer, boolean, integer); ${statements.map((sql) => `${sql};`).join(' ')}`,
  );
}

/** A made-up vocabulary of pronounceable words (none of them the rare or the common word). */
function vocabulary(size: number): string[] {
  const syllables = ['ka', 'lo', 'mi', 'ner', 'pa', 'ro', 'si', 'tu', 'ven', 'zo', 'bri', 'dal', 'fen', 'gor', 'hil', 'jas'];
  return Array.from({ length: size }, (_, i) => {
    const a = syllables[i % 16];
    const b = syllables[Math.floor(i / 16) % 16];
    const c = syllables[Math.floor(i / 256) % 16];
    return `${a}${b}${c}`;
  });
}

/** Sessions first..last, written as the hub's owner would not: straight, as the superuser, owners set. */
async function fillSessions(cluster: TestCluster, first: number, last: number, words: string[]): Promise<void> {
  await cluster.admin(
    `INSERT INTO loom.sessions (id, owner, created_at, title, state, origin_device, hub_seq)
     SELECT md5('s' || g)::uuid, CASE WHEN g % 10 < 4 THEN 'bob' ELSE 'alice' END, '2026-11-01T00:00:00.000Z',
            'Session ' || g || ' about ' || ($3::text[])[1 + (g * 7919) % array_length($3::text[], 1)],
            jsonb_build_object('updated_at', '2026-11-30T10:00:00.000Z'), md5('device')::uuid, g
       FROM generate_series($1::int, $2::int) g`,
    [first, last, words],
  );
  await cluster.admin(
    `WITH messages AS (
       SELECT g, k, CASE WHEN g % 10 < 4 THEN 'bob' ELSE 'alice' END AS owner,
              (SELECT string_agg(($3::text[])[1 + floor(random() * array_length($3::text[], 1))::int], ' ') FROM generate_series(1, $4 + 0 * g * k))
              || CASE WHEN k = 1 THEN ' ${COMMON_WORD}' ELSE '' END
              || CASE WHEN k = 2 AND g % 5000 = 0 THEN ' ${RARE_WORD}' ELSE '' END AS content
         FROM generate_series($1::int, $2::int) g, generate_series(1, ${MESSAGES_PER_SESSION}) k
     ), bodies AS (
       INSERT INTO loom.bodies (owner, hash, body, search)
       SELECT owner, md5(g || ':' || k), jsonb_build_object('role', 'user', 'content', content), to_tsvector('english', content) FROM messages
     )
     INSERT INTO loom.entries (session_id, seq, owner, body_hash, device_id, device_seq, hub_seq)
     SELECT md5('s' || g)::uuid, k + 1, owner, md5(g || ':' || k), md5('device')::uuid, g * 10 + k, g FROM messages`,
    [first, last, words, WORDS_PER_MESSAGE],
  );
  await cluster.admin(
    `INSERT INTO loom.shares (session_id, team, owner, hub_seq)
     SELECT md5('s' || g)::uuid, 'core', 'alice', g FROM generate_series($1::int, $2::int) g WHERE g % 10 >= 4 AND g % 2 = 0`,
    [first, last],
  );
}

/** 100,000 sessions of alice and bob (half of alice's shared with team core), the full-text indexes built after. */
async function fillHub(cluster: TestCluster): Promise<void> {
  const words = vocabulary(3000);
  const started = Date.now();
  // The full-text indexes are built once at the end, as a bulk load would: the same definitions, read from the hub.
  const indexes = await cluster.admin(
    `SELECT indexrelid::regclass::text AS name, pg_get_indexdef(indexrelid) AS definition FROM pg_index
      WHERE indrelid IN ('loom.bodies'::regclass, 'loom.sessions'::regclass) AND NOT indisprimary`,
  );
  for (const { name } of indexes.rows as Array<{ name: string }>) await cluster.admin(`DROP INDEX ${name}`);
  for (let first = 1; first <= SESSIONS; first += FILL_CHUNK) {
    await fillSessions(cluster, first, Math.min(SESSIONS, first + FILL_CHUNK - 1), words);
    progress(`hub: ${Math.min(SESSIONS, first + FILL_CHUNK - 1).toLocaleString('en-US')} sessions written`);
  }
  await cluster.admin(`SET maintenance_work_mem = '256MB'; ${(indexes.rows as Array<{ definition: string }>).map((row) => `${row.definition};`).join(' ')}`);
  await cluster.admin('VACUUM ANALYZE');
  progress(
    `hub: ${SESSIONS.toLocaleString('en-US')} sessions, ${(SESSIONS * MESSAGES_PER_SESSION).toLocaleString('en-US')} messages in ${formatMs(Date.now() - started)}`,
  );
}

async function teamSearchRows(cluster: TestCluster, { filled }: { filled: boolean }): Promise<HubBenchResult[]> {
  if (!filled) await fillHub(cluster);
  const bob = parseHubUrl(cluster.url('bob', PASSWORDS.bob));
  const rows: HubBenchResult[] = [];
  for (const [label, word] of [
    ['rare word', RARE_WORD],
    ['common word (a fifth of all messages)', COMMON_WORD],
  ] as const) {
    const times: number[] = [];
    let hits = 0;
    for (let run = -1; run < SEARCH_RUNS; run++) {
      const start = performance.now();
      hits = (await searchHub(bob, word, { limit: 50 })).length;
      if (run >= 0) times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    const p99 = percentile(times, 99);
    rows.push({
      row: `team search over ${SESSIONS.toLocaleString('en-US')} sessions on the hub: ${label}`,
      measured: `p50 ${formatMs(percentile(times, 50))}, p99 ${formatMs(p99)} (${hits} hits shown)`,
      target: `≤ ${SEARCH_TARGET_MS} ms`,
      met: p99 <= SEARCH_TARGET_MS,
    });
  }
  return rows;
}
