/**
 * What an approval of a file change shows (docs/DESIGN.md#permissions-and-security): the change as a
 * diff against the file as it is now, computed with jsdiff, as data (lines with their
 * numbers; the windows render it as text, never as HTML). A new file is all added lines.
 * The current file is read through project-fs (component by component, regular files only)
 * and only up to PREVIEW_FILE_CAP; past that, or when the file cannot be read, the diff
 * shows the change without the file around it and says why.
 */
import { structuredPatch, type StructuredPatchHunk } from 'diff';
import type { ApprovalPreview, DiffHunk, DiffLine } from '../../shared/approvals';
import { formatBytes } from '../../shared/byte-size';
import { errorMessage, isLoomError } from '../errors';
import { looksBinary } from './file-kind';
import { OPEN_READ, openProjectFile } from './project-fs';
import type { FileChange } from './tool-effects';

export const PREVIEW_FILE_CAP = 512 * 1024;
/** Lines of unchanged file shown around each change. */
const CONTEXT_LINES = 3;
/** A diff that takes longer than this is not worth the wait: the change is shown without it. */
const DIFF_TIMEOUT_MS = 500;

type Current = { state: 'missing' } | { state: 'text'; text: string } | { state: 'unavailable'; reason: string };

export async function fileChangePreview(projectDir: string, change: FileChange): Promise<ApprovalPreview> {
  const current = await readCurrent(projectDir, change.path);
  const preview = (hunks: DiffHunk[], note: string | null, newFile = false): ApprovalPreview => ({ kind: 'file', path: change.path, newFile, hunks, note });
  if (change.kind === 'replace-all') {
    if (current.state === 'missing') return preview(allAdded(change.content), null, true);
    if (current.state === 'unavailable') return preview(allAdded(change.content), `${current.reason} The new content is shown whole.`);
    return preview(...orWhole(diffHunks(current.text, change.content), () => allAdded(change.content), 'The new content is shown whole.'));
  }
  const { oldString, newString } = change;
  const at = current.state === 'text' ? current.text.indexOf(oldString) : -1;
  if (current.state === 'text' && at !== -1) {
    const after = current.text.slice(0, at) + newString + current.text.slice(at + oldString.length);
    return preview(
      ...orWhole(diffHunks(current.text, after), () => replacedWhole(oldString, newString), 'The text replaced and its replacement are shown whole.'),
    );
  }
  const why =
    current.state === 'unavailable' ? current.reason : current.state === 'missing' ? 'The file does not exist.' : 'The text to replace is not in the file now.';
  const [hunks, note] = orWhole(diffHunks(oldString, newString), () => replacedWhole(oldString, newString), 'They are shown whole.');
  return preview(hunks, `${why} ${note ?? 'The diff compares the text to replace with its replacement; line numbers count from its first line.'}`);
}

/** The diff, or when it took too long, the change listed whole with a note saying so. */
function orWhole(hunks: DiffHunk[] | null, whole: () => DiffHunk[], shown: string): [DiffHunk[], string | null] {
  return hunks ? [hunks, null] : [whole(), `The change is too large to compare quickly. ${shown}`];
}

async function readCurrent(projectDir: string, p: string): Promise<Current> {
  let file;
  try {
    file = await openProjectFile(projectDir, p, OPEN_READ);
  } catch (err) {
    if (isLoomError(err) && err.code === 'not_found') return { state: 'missing' };
    return { state: 'unavailable', reason: errorMessage(err) };
  }
  try {
    if (file.stat.size > PREVIEW_FILE_CAP)
      return { state: 'unavailable', reason: `${file.shown} is larger than ${formatBytes(PREVIEW_FILE_CAP)}, too large to compare.` };
    const buf = await file.handle.readFile();
    if (looksBinary(buf)) return { state: 'unavailable', reason: `${file.shown} looks like a binary file.` };
    return { state: 'text', text: buf.toString('utf8') };
  } catch (err) {
    return { state: 'unavailable', reason: errorMessage(err) };
  } finally {
    await file.handle.close();
  }
}

/** jsdiff's hunks as numbered lines; null when the diff took too long. */
function diffHunks(before: string, after: string): DiffHunk[] | null {
  const patch = structuredPatch('before', 'after', before, after, undefined, undefined, { context: CONTEXT_LINES, timeout: DIFF_TIMEOUT_MS });
  return patch ? patch.hunks.map(numbered) : null;
}

function numbered(hunk: StructuredPatchHunk): DiffHunk {
  let oldLine = hunk.oldStart;
  let newLine = hunk.newStart;
  const lines: DiffLine[] = [];
  for (const raw of hunk.lines) {
    const text = raw.slice(1);
    // "\ No newline at end of file" describes the line before; the text shows it anyway.
    if (raw.startsWith('\\')) continue;
    if (raw.startsWith('+')) lines.push({ kind: 'added', text, oldLine: null, newLine: newLine++ });
    else if (raw.startsWith('-')) lines.push({ kind: 'removed', text, oldLine: oldLine++, newLine: null });
    else lines.push({ kind: 'context', text, oldLine: oldLine++, newLine: newLine++ });
  }
  return { oldStart: hunk.oldStart, newStart: hunk.newStart, lines };
}

/** A new file (or content shown whole): every line added. */
function allAdded(content: string): DiffHunk[] {
  const lines = linesOf(content);
  return lines.length ? [{ oldStart: 0, newStart: 1, lines: lines.map((text, i) => ({ kind: 'added', text, oldLine: null, newLine: i + 1 })) }] : [];
}

/** Every line of the old text removed, then every line of the new one added. */
function replacedWhole(before: string, after: string): DiffHunk[] {
  const removed = linesOf(before).map((text, i): DiffLine => ({ kind: 'removed', text, oldLine: i + 1, newLine: null }));
  const added = linesOf(after).map((text, i): DiffLine => ({ kind: 'added', text, oldLine: null, newLine: i + 1 }));
  return [{ oldStart: 1, newStart: 1, lines: [...removed, ...added] }];
}

function linesOf(text: string): string[] {
  if (text === '') return [];
  return (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
}
