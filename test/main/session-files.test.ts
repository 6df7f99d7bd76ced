/** Session files opened from the operating system (src/main/adapters/session-files.ts). */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSessionFile, sessionFilesIn } from '../../src/main/adapters/session-files';

let dir = '';
beforeEach(() => void (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-open-'))));
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('session files from the command line', () => {
  it('are the .loom arguments, resolved, never flags or other files', () => {
    expect(sessionFilesIn(['--no-sandbox', 'notes.json', 'Fix the build.loom', `${dir}/B.LOOM`, '--file=x.loom'])).toEqual([
      path.resolve('Fix the build.loom'),
      `${dir}/B.LOOM`,
    ]);
  });
});

describe('reading a session file', () => {
  it('gives the text of a regular file', async () => {
    fs.writeFileSync(path.join(dir, 'a.loom'), '{"format":"loom-session"}');
    await expect(readSessionFile(path.join(dir, 'a.loom'))).resolves.toBe('{"format":"loom-session"}');
  });

  it('refuses a FIFO without blocking, a folder, and a missing file, in one line each', async () => {
    execFileSync('mkfifo', [path.join(dir, 'pipe.loom')]);
    fs.mkdirSync(path.join(dir, 'folder.loom'));
    await expect(readSessionFile(path.join(dir, 'pipe.loom'))).rejects.toThrow('it is not a regular file.');
    await expect(readSessionFile(path.join(dir, 'folder.loom'))).rejects.toThrow('it is not a regular file.');
    await expect(readSessionFile(path.join(dir, 'gone.loom'))).rejects.toThrow('the file does not exist.');
  });
});
