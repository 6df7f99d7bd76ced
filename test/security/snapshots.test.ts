import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { FileSnapshots } from '../../src/core/security/snapshots';

let dir: string;
const at = (...parts: string[]) => path.join(dir, ...parts);

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-snap-')));
  fs.writeFileSync(at('existing.txt'), 'original\n');
});

afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('FileSnapshots', () => {
  test('revert restores the content from before the first change of the session', async () => {
    const snaps = new FileSnapshots();
    await snaps.snapshot(dir, at('existing.txt'));
    fs.writeFileSync(at('existing.txt'), 'first change\n');
    await snaps.snapshot(dir, at('existing.txt')); // a second write keeps the first snapshot
    fs.writeFileSync(at('existing.txt'), 'second change\n');
    expect(await snaps.changedFiles()).toEqual([at('existing.txt')]);
    expect((await snaps.revert()).reverted).toEqual([at('existing.txt')]);
    expect(fs.readFileSync(at('existing.txt'), 'utf8')).toBe('original\n');
    expect(await snaps.changedFiles()).toEqual([]);
  });

  test('files that did not exist are deleted, with the folders created for them', async () => {
    fs.mkdirSync(at('kept'));
    const snaps = new FileSnapshots();
    await snaps.snapshot(dir, at('new.txt'));
    await snaps.snapshot(dir, at('a', 'b', 'deep.txt'));
    await snaps.snapshot(dir, at('kept', 'inner.txt'));
    fs.writeFileSync(at('new.txt'), 'created');
    fs.mkdirSync(at('a', 'b'), { recursive: true });
    fs.writeFileSync(at('a', 'b', 'deep.txt'), 'created');
    fs.writeFileSync(at('kept', 'inner.txt'), 'created');
    expect((await snaps.revert()).reverted).toEqual([at('a', 'b', 'deep.txt'), at('kept', 'inner.txt'), at('new.txt')]);
    expect(fs.existsSync(at('new.txt'))).toBe(false);
    expect(fs.existsSync(at('a'))).toBe(false);
    expect(fs.existsSync(at('kept'))).toBe(true); // existed before the session
  });

  test('a created folder that has other content now is left in place', async () => {
    const snaps = new FileSnapshots();
    await snaps.snapshot(dir, at('gen', 'out.txt'));
    fs.mkdirSync(at('gen'));
    fs.writeFileSync(at('gen', 'out.txt'), 'x');
    fs.writeFileSync(at('gen', 'user-file.txt'), 'not ours');
    await snaps.revert();
    expect(fs.readdirSync(at('gen'))).toEqual(['user-file.txt']);
  });

  test('a deleted original comes back with its permissions; binary content is exact', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 254, 10]);
    fs.writeFileSync(at('tool.bin'), bytes);
    fs.chmodSync(at('tool.bin'), 0o750);
    const snaps = new FileSnapshots();
    await snaps.snapshot(dir, at('tool.bin'));
    fs.rmSync(at('tool.bin'));
    expect(await snaps.changedFiles()).toEqual([at('tool.bin')]);
    await snaps.revert();
    expect(fs.readFileSync(at('tool.bin')).equals(bytes)).toBe(true);
    expect(fs.statSync(at('tool.bin')).mode & 0o777).toBe(0o750);
  });

  test('unchanged files (or changed and changed back) are not reported or touched', async () => {
    const snaps = new FileSnapshots();
    await snaps.snapshot(dir, at('existing.txt'));
    await snaps.snapshot(dir, at('never-written.txt'));
    fs.writeFileSync(at('existing.txt'), 'changed');
    fs.writeFileSync(at('existing.txt'), 'original\n');
    expect(await snaps.changedFiles()).toEqual([]);
    expect((await snaps.revert()).reverted).toEqual([]);
    expect(fs.existsSync(at('never-written.txt'))).toBe(false);
  });

  test('snapshotting a folder records nothing', async () => {
    const snaps = new FileSnapshots();
    await snaps.snapshot(dir, dir);
    expect(await snaps.changedFiles()).toEqual([]);
  });
});
