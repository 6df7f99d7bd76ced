/**
 * Guarantee 11: a damaged database is reported, never emptied. Real loom.db files are
 * damaged on disk the way a failing disk or a careless copy does it, then used through the
 * built `loom` command, the store API and the bridge dispatcher. Each attack checks the one
 * line the user sees, and that the damaged file (and its -wal) is byte for byte what it
 * was, with nothing created beside it.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LoomError } from '../../src/core/errors';
import { databasePath } from '../../src/core/store/db';
import { SessionStore } from '../../src/core/store/session-store';
import { openBackend } from '../../src/backend/backend';
import { dispatch } from '../../src/backend/dispatch';
import { JsonFileSettingsStore } from '../../src/backend/settings-store';
import { buildLoom, expectOneErrorLine, makeTempDir, removeDir, runLoom } from '../cli/run-loom';
import { breakMessagesPage, fillStore, leafPages, listing, sha256, smashPage } from '../store/damage-helpers';
import { nth } from '../support/elements';

let root: string;
let dataDir: string;
let file: string;
const loom = (...args: string[]) => runLoom([...args, '--data-dir', dataDir]);

beforeAll(buildLoom, 180_000);
beforeEach(() => {
  root = makeTempDir('loom-damage-');
  dataDir = path.join(root, 'data');
  file = databasePath(dataDir);
});
afterEach(() => removeDir(root));

/** The line every damaged-database report ends in, with the command to run. */
function wayOut(): string {
  return `Run \`loom --doctor --data-dir ${dataDir}\` to check it and salvage what can be read into a new file; the original is left as it is.`;
}

/** Runs `loom` and checks: exit 1, `expected` as the one line, file and folder unchanged. */
async function expectRefused(args: string[], expected: RegExp | string): Promise<void> {
  const before = { hash: sha256(file), files: listing(dataDir) };
  const run = await loom(...args);
  expect(run.code, `${args.join(' ')}: ${run.stderr} ${run.stdout.slice(0, 200)}`).toBe(1);
  const line = expectOneErrorLine(run);
  if (typeof expected === 'string') expect(line).toBe(`loom: ${expected}`);
  else expect(line).toMatch(expected);
  expect(run.stdout).toBe('');
  expect(sha256(file)).toBe(before.hash);
  expect(listing(dataDir)).toEqual(before.files);
}

describe('guarantee 11: a damaged database is reported, never emptied', () => {
  it('a broken page of the messages table, met long after opening: one line with the way out from --search, --export and the bridge', async () => {
    const victim = breakMessagesPage(dataDir, fillStore(dataDir, 30), root);
    const damaged = `The session database ${file} is damaged (database disk image is malformed). ${wayOut()}`;

    // Listing reads only the sessions table, which is intact: it still works.
    const list = await loom('--list-sessions', '--json');
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toHaveLength(30);

    await expectRefused(['--export', victim.id], damaged);
    // The index is intact and finds the word; its snippet must read the broken message.
    await expectRefused(['--search', victim.word], damaged);

    // The browser mode and the desktop app: the bridge envelope carries the same line.
    const hash = sha256(file);
    const backend = openBackend({ dataDir, settingsStore: new JsonFileSettingsStore(dataDir), shell: 'browser', env: {} });
    try {
      const result = await dispatch(backend.handlers, 'sessions.transcript', { id: victim.id, offset: 0, limit: 100 });
      expect(result).toEqual({
        ok: false,
        error: {
          code: 'db_damaged',
          message: expect.stringMatching(/^The session database loom\.db is damaged \(database disk image is malformed\)\. Run `loom --doctor` to check it/),
        },
      });
    } finally {
      await backend.close();
    }
    expect(sha256(file)).toBe(hash);
  });

  it('a broken page of the sessions table: --list-sessions gives the one line and changes nothing', async () => {
    fillStore(dataDir, 60);
    const pages = leafPages(file, 'sessions');
    expect(pages.length).toBeGreaterThan(1);
    smashPage(file, nth(pages, 1));
    await expectRefused(['--list-sessions'], `The session database ${file} is damaged (database disk image is malformed). ${wayOut()}`);
  });

  it('a file cut short is refused from its size before SQLite reads it', async () => {
    fillStore(dataDir, 10);
    const size = fs.statSync(file).size;
    fs.truncateSync(file, size / 2);
    await expectRefused(
      ['--list-sessions'],
      new RegExp(`is damaged \\(it is cut short: ${size / 2} of the ${size} bytes its header describes\\)\\. Run \`loom --doctor`),
    );
    expect(() => SessionStore.open(dataDir)).toThrow(expect.objectContaining({ code: 'db_damaged' }));
    expect(listing(dataDir)).toEqual(['loom.db']);
  });

  it('an empty or missing loom.db beside a -wal holding sessions is refused, the -wal kept byte for byte', async () => {
    // A -wal with real committed sessions in it: copied while the store has it open.
    const store = SessionStore.open(dataDir);
    store.create({ title: 'Only in the WAL' });
    const wal = fs.readFileSync(`${file}-wal`);
    store.close();
    expect(wal.length).toBeGreaterThan(0);

    for (const dbFile of ['empty', 'missing'] as const) {
      fs.rmSync(dataDir, { recursive: true });
      fs.mkdirSync(dataDir);
      if (dbFile === 'empty') fs.writeFileSync(file, '');
      fs.writeFileSync(`${file}-wal`, wal);
      const before = listing(dataDir);
      const run = await loom('--list-sessions');
      expect(run.code).toBe(1);
      expect(expectOneErrorLine(run)).toBe(
        `loom: The session database ${file} is ${dbFile}, but ${file}-wal beside it holds ${wal.length} bytes of its changes: the database file was lost. Loom will not start a new database over them; both were left untouched. Restore ${file} from a copy, or move ${file}-wal away to start afresh.`,
      );
      expect(listing(dataDir)).toEqual(before);
      expect(fs.readFileSync(`${file}-wal`).equals(wal)).toBe(true);
      expect(() => SessionStore.open(dataDir)).toThrow(expect.objectContaining({ code: 'db_lost' }));
      expect(listing(dataDir)).toEqual(before);
    }
  });

  it('a file with a garbage header, and an empty-looking stub, are refused with nothing created', async () => {
    fillStore(dataDir, 3);
    const bytes = fs.readFileSync(file);
    bytes.write('garbage garbage!', 0);
    fs.writeFileSync(file, bytes);
    await expectRefused(['--list-sessions'], `The session database ${file} is damaged (it does not start with an SQLite header). ${wayOut()}`);
    fs.writeFileSync(file, 'SQLite');
    await expectRefused(['--list-sessions'], `The session database ${file} is damaged (it is only 6 bytes long). ${wayOut()}`);
  });

  it("another program's WAL-mode SQLite database is refused with no -wal or -shm made beside it", async () => {
    fs.mkdirSync(dataDir);
    const foreign = new Database(file);
    foreign.pragma('journal_mode = WAL');
    foreign.exec(`CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('mine')`);
    foreign.close();
    expect(listing(dataDir)).toEqual(['loom.db']);
    await expectRefused(['--list-sessions'], `${file} is not a Loom session database (it holds other tables); it was left untouched.`);
    expect(() => SessionStore.open(dataDir)).toThrow(
      new LoomError(`${file} is not a Loom session database (it holds other tables); it was left untouched.`, 'db_foreign'),
    );
    expect(listing(dataDir)).toEqual(['loom.db']);
  });

  it('a -wal with a garbage tail keeps every committed session (SQLite stops at the first bad frame)', async () => {
    const store = SessionStore.open(dataDir);
    const ids = ['one', 'two', 'three'].map((title) => store.create({ title }).id);
    // Copies of the file and its -wal as they are while Loom runs (nothing checkpointed yet).
    const copy = path.join(root, 'copy');
    fs.mkdirSync(copy);
    fs.copyFileSync(file, databasePath(copy));
    fs.copyFileSync(`${file}-wal`, `${databasePath(copy)}-wal`);
    store.close();
    fs.appendFileSync(`${databasePath(copy)}-wal`, Buffer.alloc(10_000, 0x5a));
    const run = await runLoom(['--list-sessions', '--json', '--data-dir', copy]);
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { id: string }[]).map((s) => s.id).sort()).toEqual([...ids].sort());
  });
});
