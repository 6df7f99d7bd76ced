/**
 * Every kept release fixture (test/store/fixtures/release-<version>/loom.db, each made by
 * its own release with make-release-fixture.ts, never regenerated) opens with this code,
 * migrates once with its backup, and loses nothing: what this `loom` says about it is what
 * the release's `loom` said (expected.json beside it), and a session goes on from it with
 * its whole context. Only public behaviour is used (the CLI, the store API, SQL on the
 * file), so the test holds on any Node and better-sqlite3 Loom supports (docs/RELEASING.md).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backupPath, databasePath, openDatabase, tableNames } from '../../src/core/store/db';
import { MIGRATIONS, latestVersion, readSchemaVersion, type Migration } from '../../src/core/store/migrations';
import { SessionStore } from '../../src/core/store/session-store';
import { BIN, buildLoom, type LoomRun } from '../cli/run-loom';
import { nth, prop } from '../support/elements';
import { startScriptedServer, type ScriptedServer } from '../support/scripted-server';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const RELEASES = fs
  .readdirSync(FIXTURES)
  .filter((name) => name.startsWith('release-'))
  .sort();

/**
 * Tables a user's data folder has empty at rest, so no fixture can be asked to fill them:
 * the search queue is drained before every search and when the store is idle, and the two
 * sync tables hold rows only while a pull is being applied or waits for a session another
 * process holds (docs/DESIGN.md#sync-through-a-hub).
 */
const EMPTY_AT_REST = new Set(['search_backlog', 'sync_applying', 'sync_inbox']);

interface Expected {
  made_by: { loom: string; sqlite: string; project_dir: string };
  rows: Record<string, number>;
  sessions: Record<string, string>;
  list_sessions: unknown[];
  list_sessions_all: { id: string }[];
  info: Record<string, unknown>;
  export: Record<string, { exported_at: string; session: any }>;
  search: Record<string, SearchHitJson[]>;
}

interface SearchHitJson {
  id: string;
  parent_id: string | null;
}

/**
 * What may differ between the release's answers and this code's, and why: an export is
 * stamped with the time it was made (`exported_at`), so it is compared without it, and
 * search finds forks since issue 22 (expectReleaseSearch). Nothing else: no answer carries Loom's own version (an export has its format's version, which
 * is compared), and the JSON forms carry no relative times ("3 days ago"), which is why
 * they, not the text forms, are kept. A release that changes an answer on purpose (a new
 * field, a new export version) names the field here, with its reason.
 */
function comparableExport(doc: { exported_at: string }): unknown {
  const { exported_at, ...rest } = doc;
  expect(Date.parse(exported_at)).not.toBeNaN();
  return rest;
}

/**
 * Search changed on purpose in issue 22: a fork is found by the history it shares with
 * its parent, which the release missed (it joined each message to its owning session
 * only). So the release's hits of sessions that are not forks come back as they were and
 * in the same order; its hits of forks come back too, though ranked by their messages
 * now (their snippet may differ); every other hit is a fork.
 */
function expectReleaseSearch(word: string, now: SearchHitJson[], release: SearchHitJson[]): void {
  const isRoot = (hit: SearchHitJson) => hit.parent_id === null;
  const foundNow = new Map(now.map((hit) => [hit.id, hit]));
  for (const hit of release) expect(foundNow.get(hit.id), `--search ${word}`).toEqual(isRoot(hit) ? hit : { ...hit, snippet: expect.any(String) });
  const released = new Set(release.map((hit) => hit.id));
  expect(
    now.filter((hit) => released.has(hit.id) && isRoot(hit)),
    `--search ${word}`,
  ).toEqual(release.filter(isRoot));
  expect(
    now.filter((hit) => !released.has(hit.id) && isRoot(hit)),
    `--search ${word}`,
  ).toEqual([]);
}

let home: string;
let server: ScriptedServer;
const dirs: string[] = [];

beforeAll(buildLoom, 120_000);
beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
beforeAll(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-release-home-'));
});
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

/** `loom --data-dir DIR ...args` with a clean environment, in a project folder of its own. */
function loom(dataDir: string, args: string[], input = ''): Promise<LoomRun> {
  const cwd = path.join(path.dirname(dataDir), 'project');
  fs.mkdirSync(cwd, { recursive: true });
  const env = { PATH: process.env.PATH ?? '', HOME: home, LANG: 'C.UTF-8', TZ: 'UTC', LOOM_BASE_URL: server.baseUrl };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, '--data-dir', dataDir, ...args], { cwd, env, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

async function loomJson(dataDir: string, args: string[]): Promise<any> {
  const run = await loom(dataDir, args);
  expect(run.stderr, `loom ${args.join(' ')}`).toBe('');
  expect(run.code, `loom ${args.join(' ')}`).toBe(0);
  return JSON.parse(run.stdout);
}

/** Runs `jobs` two at a time (the machines share their cores), answers in order. */
async function inPairs<T>(jobs: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < jobs.length; i += 2) results.push(...(await Promise.all(jobs.slice(i, i + 2).map((job) => job()))));
  return results;
}

/** Every row (as JSON, sorted) of every table but the full-text indexes' own: what "nothing lost" is measured by. */
/** The columns of each table of `file`, for comparing a migrated copy by them. */
function columnsIn(file: string): (table: string) => string[] | undefined {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const columns = new Map(tableNames(db).map((name) => [name, (db.prepare(`PRAGMA table_info("${name}")`).all() as { name: string }[]).map((c) => c.name)]));
    return (table) => columns.get(table);
  } finally {
    db.close();
  }
}

/** Each table's rows, as JSON; `columnsOf` picks a table's columns (those an older file has), else all. */
function dump(file: string, only?: readonly string[], columnsOf?: (table: string) => string[] | undefined): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const virtual = new Set(db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'`).pluck().all() as string[]);
    const tables = tableNames(db).filter((name) => (only ? only.includes(name) : !virtual.has(name) && ![...virtual].some((v) => name.startsWith(`${v}_`))));
    const select = (name: string) =>
      columnsOf?.(name)
        ?.map((c) => `"${c}"`)
        .join(', ') ?? '*';
    const rows = (name: string) =>
      db
        .prepare(`SELECT ${select(name)} FROM "${name}"`)
        .all()
        .map((row) => JSON.stringify(row))
        .sort();
    return Object.fromEntries(tables.map((name) => [name, rows(name)]));
  } finally {
    db.close();
  }
}

describe.each(RELEASES)('the loom.db made by %s', (release) => {
  const fixture = path.join(FIXTURES, release, 'loom.db');
  const expected = JSON.parse(fs.readFileSync(path.join(FIXTURES, release, 'expected.json'), 'utf8')) as Expected;
  const ids = expected.list_sessions_all.map((s) => s.id);

  /** A fresh data folder holding a copy of the fixture (opening the fixture itself would write beside it). */
  function dataDirWithFixture(): string {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-release-'));
    dirs.push(root);
    const dataDir = path.join(root, 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    fs.copyFileSync(fixture, databasePath(dataDir));
    fs.chmodSync(databasePath(dataDir), 0o600);
    return dataDir;
  }

  const fixtureVersion = (() => {
    const db = new Database(fixture, { readonly: true, fileMustExist: true });
    try {
      return readSchemaVersion(db);
    } finally {
      db.close();
    }
  })();
  const backups = (dataDir: string) =>
    fs
      .readdirSync(dataDir)
      .filter((name) => /\.bak-v\d+$/.test(name))
      .sort();

  /**
   * A backup holds what the fixture held. It is a VACUUM INTO copy (db.ts), not a copy of the
   * bytes: SQLite writes the schema cookie (header bytes 40-43) anew, and another SQLite may
   * stamp its own version and lay out pages its own way. So: every row identical always, and
   * every byte but the cookie identical when this SQLite is the one that wrote the fixture.
   */
  function expectSameAsFixture(backup: string): void {
    expect(dump(backup)).toEqual(dump(fixture));
    const db = new Database(backup, { readonly: true });
    const sqlite = db.prepare('SELECT sqlite_version()').pluck().get();
    db.close();
    if (sqlite !== expected.made_by.sqlite) return;
    const [a, b] = [fs.readFileSync(fixture), fs.readFileSync(backup)];
    expect(b.length).toBe(a.length);
    a.fill(0, 40, 44);
    b.fill(0, 40, 44);
    expect(b.equals(a)).toBe(true);
  }

  it('fills every table its schema has, but the ones empty at rest', () => {
    const db = new Database(fixture, { readonly: true, fileMustExist: true });
    try {
      const empty = tableNames(db).filter((name) => db.prepare(`SELECT count(*) FROM "${name}"`).pluck().get() === 0);
      expect(empty.sort()).toEqual([...EMPTY_AT_REST].filter((name) => tableNames(db).includes(name)).sort());
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });

  it('opens with the real CLI, migrated once with its backup, and this loom says what its release said', async () => {
    const dataDir = dataDirWithFixture();
    const listAll = await loomJson(dataDir, ['--list-sessions', '--include-archived', '--json']);
    const latest = latestVersion(MIGRATIONS);
    if (latest > fixtureVersion) {
      expect(backups(dataDir)).toContain(path.basename(backupPath(databasePath(dataDir), fixtureVersion)));
      expectSameAsFixture(backupPath(databasePath(dataDir), fixtureVersion));
    } else {
      expect(backups(dataDir)).toEqual([]);
    }
    const store = SessionStore.open(dataDir);
    try {
      expect(readSchemaVersion(store.db)).toBe(latest);
    } finally {
      store.close();
    }

    expect(listAll).toEqual(expected.list_sessions_all);
    expect(await loomJson(dataDir, ['--list-sessions', '--json'])).toEqual(expected.list_sessions);
    const infos = await inPairs(ids.map((id) => () => loomJson(dataDir, ['--info', id, '--json'])));
    // Keys added since the release (docs/DESIGN.md#json-output: new keys may be added, none removed): the agent, and sub-agents (none).
    ids.forEach((id, i) => {
      const released = prop(expected.info, id) as { usage: unknown };
      const noUsage = { calls: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 };
      const noChildUsage = { ...noUsage, by_kind: { chat: noUsage, compaction: noUsage, summary: noUsage } };
      expect(infos[i], `--info ${id}`).toEqual({
        ...released,
        agent: 'build',
        agent_changes: [],
        subagent_of: null,
        children: [],
        children_usage: noChildUsage,
        total_usage: released.usage,
      });
    });
    const exports = await inPairs(ids.map((id) => () => loomJson(dataDir, ['--export', id])));
    ids.forEach((id, i) => expect(comparableExport(exports[i]), `--export ${id}`).toEqual(comparableExport(prop(expected.export, id))));
    const words = Object.keys(expected.search);
    const hits = await inPairs(words.map((word) => () => loomJson(dataDir, ['--search', word, '--json', '--include-archived'])));
    words.forEach((word, i) => expectReleaseSearch(word, hits[i], prop(expected.search, word)));

    // The rows behind the answers: no table of the release lost one.
    const now = dump(databasePath(dataDir), Object.keys(expected.rows));
    for (const [table, rows] of Object.entries(expected.rows)) expect(now[table]?.length ?? -1, table).toBeGreaterThanOrEqual(rows);
  });

  it('a second open neither migrates again nor takes another backup', async () => {
    const dataDir = dataDirWithFixture();
    await loomJson(dataDir, ['--list-sessions', '--json']);
    const first = backups(dataDir).map((name) => [name, fs.statSync(path.join(dataDir, name)).mtimeMs]);
    await loomJson(dataDir, ['--list-sessions', '--json']);
    SessionStore.open(dataDir).close();
    expect(backups(dataDir).map((name) => [name, fs.statSync(path.join(dataDir, name)).mtimeMs])).toEqual(first);
  });

  it('--resume goes on from the main session with its whole context: the compaction summary, pins, plan, new model', async () => {
    const dataDir = dataDirWithFixture();
    const id = prop(expected.sessions, 'main');
    const exported = prop(expected.export, id).session;
    server.enqueue({ text: 'Carrying on with positions.' }, { text: 'Quokka lexer, resumed' });
    const run = await loom(dataDir, ['--resume', id], 'What is left to do?\n');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Assistant: Carrying on with positions.');

    const body = nth(server.requests, 0).body;
    expect(body.model).toBe(exported.model);
    // The system prompt is this code's, written afresh for the folder it runs in (a release
    // may reword it); after it, the working context the release saved, then the new prompt:
    // nothing dropped, nothing added.
    expect(body.messages[0]).toMatchObject({
      role: 'system',
      content: expect.stringContaining(`The project folder is: ${path.join(path.dirname(dataDir), 'project')}`),
    });
    expect(exported.messages[0].role).toBe('system');
    expect(body.messages.slice(1, -1)).toEqual(exported.messages.slice(1));
    expect(body.messages.at(-1)).toEqual({ role: 'user', content: expect.stringContaining('What is left to do?') });
    const sent = JSON.stringify(body.messages);
    const [compaction] = exported.compactions;
    expect(sent).toContain(JSON.stringify(compaction.summary).slice(1, -1));
    expect(sent).toContain('Tokens carry their line and column.');
    expect(sent).toContain('Handle string literals');

    // The transcript goes on after the release's, which is kept whole (this run's system
    // prompt, for another folder, is recorded as it changed).
    const after = (await loomJson(dataDir, ['--export', id])).session;
    expect(after.transcript.slice(0, exported.transcript.length)).toEqual(exported.transcript);
    expect(after.transcript.slice(exported.transcript.length).map((m: { role: string }) => m.role)).toEqual(['system', 'user', 'assistant']);
    expect(after.compactions).toEqual(exported.compactions);
    const store = SessionStore.open(dataDir);
    try {
      expect(store.getPins(id).map((p) => p.text)).toEqual(expect.arrayContaining(['Tokens carry their line and column.']));
      expect(store.getPins(id)).toHaveLength(2);
    } finally {
      store.close();
    }
  });

  it('the real migrations after the fixture back it up, keep every row, and log the changes made from then on', () => {
    const dataDir = dataDirWithFixture();
    const file = databasePath(dataDir);
    openDatabase(dataDir).close();
    const later = MIGRATIONS.filter((m) => m.version > fixtureVersion).map((m) => m.version);
    // One copy before each step (docs/DESIGN.md#store): the first is the release's file as it was.
    const steps = [fixtureVersion, ...later.slice(0, -1)];
    expect(backups(dataDir)).toEqual(later.length ? steps.map((v) => path.basename(backupPath(file, v))) : []);
    if (later.length) expectSameAsFixture(backupPath(file, fixtureVersion));
    // What the migrations add starts empty; every row the release wrote is as it was.
    // A column a later migration added (sessions.deleted_at) is compared by what the release had.
    const {
      schema_version: version,
      session_changes: changes,
      agent_changes: agentChanges,
      sqlite_sequence: sequence,
      file_snapshots: snapshots,
      ...rows
    } = dump(file, undefined, columnsIn(fixture));
    const { schema_version: fixtureVersionRow, sqlite_sequence: fixtureSequence, ...fixtureRows } = dump(fixture);
    expect(fixtureVersionRow).toEqual([JSON.stringify({ version: fixtureVersion })]);
    expect(version).toEqual([JSON.stringify({ version: latestVersion(MIGRATIONS) })]);
    expect(changes).toEqual([]);
    expect(snapshots).toEqual([]);
    expect(agentChanges).toEqual([]);
    // A trigger's INSERT … SELECT that adds no row (during a migration's backfill) still records its table's
    // counter, at 0: no number was handed out.
    expect((sequence as string[]).filter((row) => !row.endsWith('"seq":0}'))).toEqual(fixtureSequence);
    expect(rows).toEqual(fixtureRows);
    // The columns added since start empty: no session of the release is in the Trash or had a folder chosen, only recorded.
    const added = new Database(file, { readonly: true });
    try {
      expect(added.prepare('SELECT count(*) AS n FROM sessions WHERE deleted_at IS NOT NULL OR project_dir IS NOT NULL').get()).toEqual({ n: 0 });
    } finally {
      added.close();
    }

    const store = SessionStore.open(dataDir);
    try {
      const main = prop(expected.sessions, 'main');
      store.rename(main, 'Renamed after the migration');
      expect(store.db.prepare('SELECT session_id, kind FROM session_changes').all()).toEqual([{ session_id: main, kind: 'changed' }]);
    } finally {
      store.close();
    }
  });

  it("a migration after the fixture's version backs the file up first and keeps every row", () => {
    // The fixture's own schema plus one test-only step: the path every later release's first
    // migration takes from this file (the CLI test above runs the real ones, when there are).
    const probe: Migration = {
      version: fixtureVersion + 1,
      description: 'test only: a table added after the fixture',
      up: (db) => db.exec('CREATE TABLE release_fixture_probe (id INTEGER PRIMARY KEY, session_pk INTEGER REFERENCES sessions (pk))'),
    };
    const dataDir = dataDirWithFixture();
    const db = openDatabase(dataDir, { migrations: [...MIGRATIONS.filter((m) => m.version <= fixtureVersion), probe] });
    try {
      expect(readSchemaVersion(db)).toBe(fixtureVersion + 1);
    } finally {
      db.close();
    }
    const file = databasePath(dataDir);
    expect(backups(dataDir)).toEqual([path.basename(backupPath(file, fixtureVersion))]);
    expectSameAsFixture(backupPath(file, fixtureVersion));
    // Nothing lost: every row of every table as it was; only the version moved on.
    const { schema_version: version, release_fixture_probe: added, ...rows } = dump(file);
    const { schema_version: fixtureVersionRow, ...fixtureRows } = dump(fixture);
    expect(fixtureVersionRow).toEqual([JSON.stringify({ version: fixtureVersion })]);
    expect(version).toEqual([JSON.stringify({ version: fixtureVersion + 1 })]);
    expect(added).toEqual([]);
    expect(rows).toEqual(fixtureRows);
  });
});
