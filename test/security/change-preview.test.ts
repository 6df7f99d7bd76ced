/**
 * What an approval of a file change previews: the change as numbered diff lines against the
 * file as it is now (jsdiff), a new file as all added lines, and a note when the file
 * around the change cannot be shown.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fileChangePreview, PREVIEW_FILE_CAP } from '../../src/core/security/change-preview';
import type { ApprovalPreview, DiffLine } from '../../src/shared/approvals';

let project: string;

beforeAll(() => {
  project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-preview-')));
  const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
  fs.writeFileSync(path.join(project, 'twenty.txt'), `${lines.join('\n')}\n`);
  fs.writeFileSync(path.join(project, 'big.txt'), 'x'.repeat(PREVIEW_FILE_CAP + 1));
  fs.writeFileSync(path.join(project, 'binary.bin'), Buffer.from([1, 0, 2]));
  fs.writeFileSync(`${project}-outside.txt`, 'secret\n');
  fs.symlinkSync(`${project}-outside.txt`, path.join(project, 'link.txt'));
});

afterAll(() => {
  fs.rmSync(project, { recursive: true, force: true });
  fs.rmSync(`${project}-outside.txt`);
});

type FilePreview = Extract<ApprovalPreview, { kind: 'file' }>;
const lines = (preview: ApprovalPreview): DiffLine[] => (preview as FilePreview).hunks.flatMap((h) => h.lines);
const changed = (preview: ApprovalPreview) => lines(preview).filter((l) => l.kind !== 'context');

describe('fileChangePreview', () => {
  test('a new file: every line added, numbered from 1', async () => {
    const preview = await fileChangePreview(project, { path: 'src/new.ts', kind: 'replace-all', content: 'a\nb\n' });
    expect(preview).toMatchObject({ kind: 'file', path: 'src/new.ts', newFile: true, note: null });
    expect(lines(preview)).toEqual([
      { kind: 'added', text: 'a', oldLine: null, newLine: 1 },
      { kind: 'added', text: 'b', oldLine: null, newLine: 2 },
    ]);
  });

  test('an edit: the changed line against the file now, with its real line numbers and 3 lines around it', async () => {
    const preview = await fileChangePreview(project, { path: 'twenty.txt', kind: 'replace-first', oldString: 'line 10\n', newString: 'line ten\n' });
    expect(preview).toMatchObject({ newFile: false, note: null });
    expect(changed(preview)).toEqual([
      { kind: 'removed', text: 'line 10', oldLine: 10, newLine: null },
      { kind: 'added', text: 'line ten', oldLine: null, newLine: 10 },
    ]);
    const context = lines(preview).filter((l) => l.kind === 'context');
    expect(context.map((l) => l.oldLine)).toEqual([7, 8, 9, 11, 12, 13]);
  });

  test('an overwrite of an existing file: a diff of the whole new content against it', async () => {
    const next = fs.readFileSync(path.join(project, 'twenty.txt'), 'utf8').replace('line 2\n', '').replace('line 19\n', 'line 19\nline 19b\n');
    const preview = await fileChangePreview(project, { path: 'twenty.txt', kind: 'replace-all', content: next });
    expect(preview).toMatchObject({ newFile: false, note: null });
    expect(changed(preview)).toEqual([
      { kind: 'removed', text: 'line 2', oldLine: 2, newLine: null },
      { kind: 'added', text: 'line 19b', oldLine: null, newLine: 19 },
    ]);
  });

  test('an edit whose text is not in the file: the two texts compared, and the note says why', async () => {
    const preview = await fileChangePreview(project, { path: 'twenty.txt', kind: 'replace-first', oldString: 'nowhere', newString: 'somewhere' });
    expect((preview as FilePreview).note).toMatch(/^The text to replace is not in the file now\./);
    expect(changed(preview).map((l) => `${l.kind} ${l.text}`)).toEqual(['removed nowhere', 'added somewhere']);
  });

  test('a file over the cap, a binary file or a link out of the project is not read: the change is shown without it, and why', async () => {
    const big = await fileChangePreview(project, { path: 'big.txt', kind: 'replace-all', content: 'small\n' });
    expect((big as FilePreview).note).toMatch(/larger than 512 kB/);
    expect(changed(big)).toEqual([{ kind: 'added', text: 'small', oldLine: null, newLine: 1 }]);
    expect(((await fileChangePreview(project, { path: 'binary.bin', kind: 'replace-all', content: 'x' })) as FilePreview).note).toMatch(/binary/);
    const viaLink = await fileChangePreview(project, { path: 'link.txt', kind: 'replace-first', oldString: 'secret\n', newString: 'public\n' });
    expect((viaLink as FilePreview).note).toMatch(/outside the project folder/);
    expect(lines(viaLink).map((l) => l.oldLine)).toEqual([1, null]);
  });

  test('a change too large to compare in time is listed whole, and the note says so', async () => {
    const lines = (tag: string) => Array.from({ length: 20_000 }, (_, i) => `${tag}${(i * 7919) % 20_000}`).join('\n');
    fs.writeFileSync(path.join(project, 'many.txt'), `${lines('a')}\n`);
    const preview = (await fileChangePreview(project, { path: 'many.txt', kind: 'replace-all', content: `${lines('b')}\n` })) as FilePreview;
    expect(preview.note).toBe('The change is too large to compare quickly. The new content is shown whole.');
    expect(changed(preview)).toHaveLength(20_000);
    expect(changed(preview).every((l) => l.kind === 'added')).toBe(true);
  });
});
