/**
 * Listing an import's location (core/import/session-files.ts) on a real folder tree: every
 * regular session file at any depth in name order, nothing reached through a symbolic link
 * below the location, and one line for a location that cannot be listed.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionFiles } from '../../src/core/import/session-files';
import { tempDir } from '../store/helpers';
import { writeFile } from './fixtures';

const isJsonl = (file: string) => file.endsWith('.jsonl');

describe('sessionFiles', () => {
  it('lists the session files at every depth, in name order, and nothing else', async () => {
    const root = tempDir('loom-listing-');
    const deep = writeFile(path.join(root, 'b', '2025', '12', '01', 'deep.jsonl'), '{}\n');
    const top = writeFile(path.join(root, 'a.jsonl'), '{}\n');
    const middle = writeFile(path.join(root, 'b', 'middle.jsonl'), '{}\n');
    writeFile(path.join(root, 'b', 'notes.md'), 'not a session\n');
    fs.mkdirSync(path.join(root, 'folder.jsonl'));
    execFileSync('mkfifo', [path.join(root, 'b', 'pipe.jsonl')]);

    expect(await sessionFiles(root, isJsonl)).toEqual([top, deep, middle]);
  });

  it('enters no symbolic link below the location, to a folder or a file, while the location itself may be one', async () => {
    const outside = tempDir('loom-outside-');
    const secret = writeFile(path.join(outside, 'elsewhere', 'secret.jsonl'), '{}\n');
    const root = tempDir('loom-listing-');
    const own = writeFile(path.join(root, 'project', 'own.jsonl'), '{}\n');
    fs.symlinkSync(path.join(outside, 'elsewhere'), path.join(root, 'project', 'linked-folder'));
    fs.symlinkSync(secret, path.join(root, 'project', 'linked.jsonl'));
    fs.symlinkSync(root, path.join(root, 'project', 'loop'));
    const viaLink = path.join(outside, 'sessions');
    fs.symlinkSync(root, viaLink);

    expect(await sessionFiles(root, isJsonl)).toEqual([own]);
    expect(await sessionFiles(viaLink, isJsonl)).toEqual([path.join(viaLink, 'project', 'own.jsonl')]);
  });

  it('takes a file as the one file to import, and refuses a missing location or a path through a file in one line', async () => {
    const root = tempDir('loom-listing-');
    const file = writeFile(path.join(root, 'one.json'), '{}\n');
    expect(await sessionFiles(file, isJsonl)).toEqual([file]);
    await expect(sessionFiles(path.join(root, 'missing'), isJsonl)).rejects.toThrow(`Nothing to import: ${path.join(root, 'missing')} does not exist.`);
    await expect(sessionFiles(path.join(file, 'below'), isJsonl)).rejects.toThrow(
      `Cannot read ${path.join(file, 'below')}: a part of the path is a file, not a folder.`,
    );
  });
});
