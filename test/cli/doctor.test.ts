/**
 * `loom --doctor` end to end: the built command on real loom.db files, healthy and damaged.
 * It reports, salvages into a new file, and never changes or replaces loom.db.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { databasePath } from '../../src/core/store/db';
import { fillStore, leafPages, listing, sha256, smashPage } from '../store/damage-helpers';
import { nth } from '../support/elements';
import { buildLoom, makeTempDir, removeDir, runLoom } from './run-loom';

let root: string;
let dataDir: string;
let file: string;
const loom = (...args: string[]) => runLoom([...args, '--data-dir', dataDir]);

beforeAll(buildLoom, 180_000);
beforeEach(() => {
  root = makeTempDir('loom-doctor-');
  dataDir = path.join(root, 'data');
  file = databasePath(dataDir);
});
afterEach(() => removeDir(root));

describe('loom --doctor', () => {
  it('reports a healthy database as ok, exit 0, and changes nothing', async () => {
    fillStore(dataDir, 3);
    const before = { hash: sha256(file), files: listing(dataDir) };
    const run = await loom('--doctor');
    expect(run).toEqual({ code: 0, stdout: `${file}: ok (SQLite's integrity check found no damage).\n`, stderr: '' });
    expect(sha256(file)).toBe(before.hash);
    expect(listing(dataDir)).toEqual(before.files);
  });

  it('says there is nothing to check where there is no database, and creates nothing', async () => {
    const run = await loom('--doctor');
    expect(run).toEqual({ code: 0, stdout: `No session database at ${file} yet; nothing to check.\n`, stderr: '' });
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  it('salvages the readable sessions of a damaged database into a new file that Loom opens', async () => {
    const ids = fillStore(dataDir, 30);
    const pages = leafPages(file, 'messages');
    smashPage(file, nth(pages, Math.floor(pages.length / 2)));
    const hash = sha256(file);

    const run = await loom('--doctor');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`${file}: damaged.`);
    // Table by table, the check names the damaged ones.
    expect(lines).toContain('  messages: database disk image is malformed');
    expect(lines).not.toContain('  sessions: database disk image is malformed');
    const salvaged = listing(dataDir).filter((name) => name.startsWith('loom.salvaged-'));
    expect(salvaged).toEqual([expect.stringMatching(/^loom\.salvaged-\d{8}T\d{6}Z\.db$/)]);
    const copy = path.join(dataDir, nth(salvaged, 0));
    expect(run.stdout).toContain(`Salvaged what could be read into ${copy}:\n`);
    expect(run.stdout).toMatch(/\n {2}sessions +30 rows saved\n/);
    expect(run.stdout).toMatch(/\n {2}messages +\d+ rows saved; unreadable: rows between rowid \d+ and \d+\n/);
    expect(run.stdout).toMatch(/\n {2}transcript +\d+ rows saved; \d+ dropped \(what they belong to was lost\)\n/);
    expect(lines.slice(-3)).toEqual([
      `${file} was not changed. To switch to the salvaged copy, close every Loom window and command, then:`,
      `  mv ${file} ${copy.replace('salvaged', 'damaged')}`,
      `  mv ${copy} ${file}`,
    ]);
    // The original is as it was, with nothing but the copy beside it.
    expect(sha256(file)).toBe(hash);
    expect(listing(dataDir)).toEqual(['loom.db', salvaged[0]]);
    expect(fs.statSync(copy).mode & 0o777).toBe(0o600);

    // Moved into a folder of its own as loom.db, the copy is a healthy Loom database.
    const fresh = path.join(root, 'fresh');
    fs.mkdirSync(fresh);
    fs.renameSync(copy, databasePath(fresh));
    const list = await runLoom(['--list-sessions', '--json', '--data-dir', fresh]);
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { id: string }[]).map((s) => s.id).sort()).toEqual([...ids].sort());
    const check = await runLoom(['--doctor', '--data-dir', fresh]);
    expect(check.code, check.stdout).toBe(0);
    // The rebuilt search index finds words of the saved messages.
    const search = await runLoom(['--search', 'asked0', '--json', '--data-dir', fresh]);
    expect((JSON.parse(search.stdout) as { id: string }[]).map((s) => s.id)).toEqual([ids[0]]);
  });

  it('cannot salvage a file SQLite cannot read, says so, and leaves it alone', async () => {
    fillStore(dataDir, 3);
    const bytes = fs.readFileSync(file);
    bytes.write('garbage garbage!', 0);
    fs.writeFileSync(file, bytes);
    const run = await loom('--doctor');
    expect(run).toEqual({
      code: 1,
      stdout: `${file}: damaged.\n  it cannot be read as a database: it does not start with an SQLite header\nNothing can be salvaged: SQLite cannot read this file. It was not changed.\n`,
      stderr: '',
    });
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    expect(listing(dataDir)).toEqual(['loom.db']);
  });

  it('cannot be combined with another command', async () => {
    const run = await loom('--doctor', '--list-sessions');
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('loom: --list-sessions and --doctor cannot be used together; give one at a time.\n');
  });
});
