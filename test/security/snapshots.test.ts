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
  test('revert restores the content from before the first change of the session', () => {
    const snaps = new FileSnapshots();
    snaps.snapshot(at('existing.txt'));
    fs.writeFileSync(at('existing.txt'), 'first change\n');
    snaps.snapshot(at('existing.txt')); // a second write keeps the first snapshot
    fs.writeFileSync(at('existing.txt'), 'second change\n');
    expect(snaps.changedFiles()).toEqual([at('existing.txt')]);
    expect(snaps.revert()).toEqual([at('existing.txt')]);
    expect(fs.readFileSync(at('existing.txt'), 'utf8')).toBe('original\n');
    expect(snaps.changedFiles()).toEqual([]);
  });

  test('files that did not exist are deleted, with the folders created for them', () => {
    fs.mkdirSync(at('kept'));
    const snaps = new FileSnapshots();
    snaps.snapshot(at('new.txt'));
    snaps.snapshot(at('a', 'b', 'deep.txt'));
    snaps.snapshot(at('kept', 'inner.txt'));
    fs.writeFileSync(at('new.txt'), 'created');
    fs.mkdirSync(at('a', 'b'), { recursive: true });
    fs.writeFileSync(at('a', 'b', 'deep.txt'), 'created');
    fs.writeFileSync(at('kept', 'inner.txt'), 'created');
    expect(snaps.revert()).toEqual([at('a', 'b', 'deep.txt'), at('kept', 'inner.txt'), at('new.txt')]);
    expect(fs.existsSync(at('new.txt'))).toBe(false);
    expect(fs.existsSync(at('a'))).toBe(false);
    expect(fs.existsSync(at('kept'))).toBe(true); // existed before the session
  });

  test('a created folder that has other content now is left in place', () => {
    const snaps = new FileSnapshots();
    snaps.snapshot(at('gen', 'out.txt'));
    fs.mkdirSync(at('gen'));
    fs.writeFileSync(at('gen', 'out.txt'), 'x');
    fs.writeFileSync(at('gen', 'user-file.txt'), 'not ours');
    snaps.revert();
    expect(fs.readdirSync(at('gen'))).toEqual(['user-file.txt']);
  });

  test('a deleted original comes back with its permissions; binary content is exact', () => {
    const bytes = Buffer.from([0, 1, 2, 255, 254, 10]);
    fs.writeFileSync(at('tool.bin'), bytes);
    fs.chmodSync(at('tool.bin'), 0o750);
    const snaps = new FileSnapshots();
    snaps.snapshot(at('tool.bin'));
    fs.rmSync(at('tool.bin'));
    expect(snaps.changedFiles()).toEqual([at('tool.bin')]);
    snaps.revert();
    expect(fs.readFileSync(at('tool.bin')).equals(bytes)).toBe(true);
    expect(fs.statSync(at('tool.bin')).mode & 0o777).toBe(0o750);
  });

  test('unchanged files (or changed and changed back) are not reported or touched', () => {
    const snaps = new FileSnapshots();
    snaps.snapshot(at('existing.txt'));
    snaps.snapshot(at('never-written.txt'));
    fs.writeFileSync(at('existing.txt'), 'changed');
    fs.writeFileSync(at('existing.txt'), 'original\n');
    expect(snaps.changedFiles()).toEqual([]);
    expect(snaps.revert()).toEqual([]);
    expect(fs.existsSync(at('never-written.txt'))).toBe(false);
  });

  test('snapshotting a folder records nothing', () => {
    const snaps = new FileSnapshots();
    snaps.snapshot(dir);
    expect(snaps.changedFiles()).toEqual([]);
  });
});
