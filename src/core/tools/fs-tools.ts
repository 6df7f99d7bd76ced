/**
 * File tools: read_file, glob_files, grep, write_file, edit_file. Every path is resolved by
 * resolveInsideProject (`..`, absolute paths and symlinks cannot lead outside the project
 * folder, whatever the permission mode) and then opened through security/project-fs.ts,
 * component by component without following links, as a regular file only.
 */
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import { z } from 'zod';
import { counted } from '../counted';
import { LoomError } from '../errors';
import {
  explainFsError,
  inspectProjectPath,
  OPEN_CREATE_OR_TRUNCATE,
  OPEN_READ,
  OPEN_READ_WRITE,
  openProjectFile,
  type ProjectFile,
} from '../security/project-fs';
import { MAX_TOOL_ARGUMENT_CHARS } from './arguments';
import { defineTool, type ToolContext } from './tool';
import { grepFiles } from './grep-search';
import { looksBinary, SNIFF_BYTES } from '../security/file-kind';
import { matchingFiles, type MatchedFile } from './project-walk';

const MAX_PATH = 4096;
/** Longest line read_file shows whole; minified files would flood the context otherwise. */
const MAX_LINE_CHARS = 2000;
const MAX_GLOB_RESULTS = 500;
/** No single text field can be longer than a whole call's arguments may be; the schema tells the model. */
const MAX_WRITE_CHARS = MAX_TOOL_ARGUMENT_CHARS;
const MAX_EDIT_FILE_BYTES = 10 * 1024 * 1024;
/** Folders nobody means to search unless the pattern names them. */
const DEFAULT_IGNORES = ['node_modules', '.git'];

const pathField = (what: string) => z.string().min(1).max(MAX_PATH).describe(what);

/** Runs `use` on the open file and closes it whatever happens. */
async function withFile<T>(file: ProjectFile, use: (file: ProjectFile) => Promise<T>): Promise<T> {
  try {
    return await use(file);
  } finally {
    await file.handle.close();
  }
}

async function sniff(handle: FileHandle): Promise<Buffer> {
  const buf = Buffer.alloc(SNIFF_BYTES);
  const { bytesRead } = await handle.read(buf, 0, SNIFF_BYTES, 0);
  return buf.subarray(0, bytesRead);
}

function clipLine(line: string): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  return `${line.slice(0, MAX_LINE_CHARS)} … [line cut: ${line.length} characters]`;
}

/** Streams the file so that a window into a huge log costs only what is read. */
async function readLineWindow(handle: FileHandle, offset: number, limit: number) {
  // The caller closes the handle: the stream must not.
  const stream = handle.createReadStream({ encoding: 'utf8', start: 0, autoClose: false });
  const lines = readline.createInterface({ input: stream, crlfDelay: Infinity });
  const shown: string[] = [];
  let count = 0;
  let more = false;
  try {
    for await (const line of lines) {
      count++;
      if (count >= offset + limit) {
        more = true;
        break;
      }
      if (count >= offset) shown.push(`${count}: ${clipLine(line)}`);
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  return { shown, count, more };
}

export const readFileTool = defineTool({
  name: 'read_file',
  description:
    'Read a text file in the project folder. Returns numbered lines as "n: text". ' +
    'Use offset (1-based first line) and limit (number of lines) to page through long files.',
  effects: { kind: 'read' },
  schema: z.strictObject({
    path: pathField('File path, relative to the project folder.'),
    offset: z.number().int().min(1).max(100_000_000).default(1).describe('First line to show (1-based).'),
    limit: z.number().int().min(1).max(2000).default(200).describe('How many lines to show.'),
  }),
  async run({ path: p, offset, limit }, ctx) {
    return withFile(await openProjectFile(ctx.projectDir, p, OPEN_READ), async ({ handle, shown, stat }) => {
      if (stat.size === 0) return `${shown} is empty.`;
      if (looksBinary(await sniff(handle))) {
        throw new LoomError(`${shown} looks like a binary file (${stat.size} bytes); read_file shows text files only.`);
      }
      const window = await readLineWindow(handle, offset, limit);
      if (window.shown.length === 0) {
        throw new LoomError(`${shown} has ${window.count} lines; offset ${offset} is past the end.`);
      }
      const last = offset + window.shown.length - 1;
      const note = window.more ? `\n[Lines ${offset}-${last} shown; more lines follow. Continue with offset=${last + 1}.]` : '';
      return window.shown.join('\n') + note;
    });
  },
});

/** Patterns and include filters are relative and may not climb out of their folder. */
function checkRelativePattern(pattern: string, field: string): void {
  if (path.isAbsolute(pattern) || /^[A-Za-z]:/.test(pattern)) {
    throw new LoomError(`${field} must be relative (to path), not absolute: ${pattern}`);
  }
  if (pattern.split(/[\\/]/).includes('..')) {
    throw new LoomError(`${field} may not contain ".." segments; set path instead: ${pattern}`);
  }
}

type SearchedFolder = Awaited<ReturnType<typeof inspectProjectPath>>;

function walkRequest(ctx: ToolContext, folder: SearchedFolder, pattern: string) {
  return {
    projectDir: ctx.projectDir,
    root: folder.root,
    parts: folder.parts,
    pattern,
    skipFolders: DEFAULT_IGNORES.filter((name) => !pattern.includes(name)),
    signal: ctx.signal,
  };
}

/** Files under `folder` matching `pattern`, relative to the project folder and sorted. */
async function findFiles(ctx: ToolContext, folder: SearchedFolder, pattern: string): Promise<string[]> {
  const found: string[] = [];
  for await (const file of matchingFiles(walkRequest(ctx, folder, pattern))) found.push(file.rel);
  return found.sort();
}

export const globFilesTool = defineTool({
  name: 'glob_files',
  description:
    'List files in the project folder matching a glob pattern such as "**/*.ts" or "src/*.{js,json}". ' +
    'Results are paths relative to the project folder, sorted. node_modules and .git are skipped unless the pattern names them.',
  effects: { kind: 'read' },
  schema: z.strictObject({
    pattern: z.string().min(1).max(1000).describe('Glob pattern, relative to path.'),
    path: pathField('Folder to search in, relative to the project folder.').default('.'),
  }),
  async run({ pattern, path: p }, ctx) {
    checkRelativePattern(pattern, 'pattern');
    const dir = await inspectProjectPath(ctx.projectDir, p);
    if (!dir.isFolder) throw new LoomError(`${dir.shown} is a file, not a folder; path must be a folder.`);
    const files = await findFiles(ctx, dir, pattern);
    if (files.length === 0) return `No files match ${pattern} in ${dir.shown}.`;
    if (files.length <= MAX_GLOB_RESULTS) return files.join('\n');
    return files.slice(0, MAX_GLOB_RESULTS).join('\n') + `\n[Showing ${MAX_GLOB_RESULTS} of ${files.length} files; narrow the pattern or path.]`;
  },
});

export const grepTool = defineTool({
  name: 'grep',
  description:
    'Search file contents with a JavaScript regular expression. Returns "file:line: text" for each matching line. ' +
    'path is a folder or a file; include is a glob on file names (e.g. "*.ts" or "*.{js,jsx}"). Binary and very large files are skipped.',
  effects: { kind: 'read' },
  schema: z.strictObject({
    pattern: z.string().min(1).max(1000).describe('JavaScript regular expression (no slashes or flags).'),
    path: pathField('Folder or file to search, relative to the project folder.').default('.'),
    include: z.string().min(1).max(1000).default('*').describe('Glob filter on file names, e.g. "*.ts".'),
  }),
  async run({ pattern, path: p, include }, ctx) {
    try {
      new RegExp(pattern);
    } catch (err) {
      throw new LoomError(`pattern is not a valid JavaScript regular expression: ${(err as Error).message}`);
    }
    checkRelativePattern(include, 'include');
    const target = await inspectProjectPath(ctx.projectDir, p);
    const files = target.isFolder
      ? matchingFiles(walkRequest(ctx, target, include.includes('/') ? include : `**/${include}`))
      : oneFile(await openProjectFile(ctx.projectDir, p, OPEN_READ));
    return grepFiles(ctx, pattern, files, `${target.shown}${include === '*' ? '' : ` (${include})`}`);
  },
});

/** The file grep was pointed at, opened first so that a FIFO or a link gets its clear error; the search closes it. */
async function* oneFile(file: ProjectFile): AsyncGenerator<MatchedFile> {
  yield { rel: file.shown, open: async () => file };
}

export const writeFileTool = defineTool({
  name: 'write_file',
  description: 'Create or overwrite a file in the project folder with the given content. Missing folders are created.',
  effects: { kind: 'write-files', change: (args) => ({ path: args.path, kind: 'replace-all', content: args.content }) },
  schema: z.strictObject({
    path: pathField('File path, relative to the project folder.'),
    content: z.string().max(MAX_WRITE_CHARS).describe('The complete new file content.'),
  }),
  async run({ path: p, content }, ctx) {
    const file = await openProjectFile(ctx.projectDir, p, OPEN_CREATE_OR_TRUNCATE, { createFolders: true });
    const { shown, existed } = file;
    await withFile(file, ({ handle }) => handle.writeFile(content, 'utf8')).catch((err) => {
      throw explainFsError(err, shown);
    });
    const bytes = Buffer.byteLength(content);
    return `${existed ? 'Overwrote' : 'Created'} ${shown} (${counted(countLines(content), 'line')}, ${counted(bytes, 'byte')}).`;
  },
});

function countLines(text: string): number {
  if (text === '') return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

export const editFileTool = defineTool({
  name: 'edit_file',
  description:
    'Replace the first occurrence of old_string with new_string in a file of the project folder. ' +
    'old_string must match the file exactly, including whitespace and indentation; read the file first.',
  effects: { kind: 'write-files', change: (args) => ({ path: args.path, kind: 'replace-first', oldString: args.old_string, newString: args.new_string }) },
  schema: z.strictObject({
    path: pathField('File path, relative to the project folder.'),
    old_string: z.string().min(1).max(MAX_WRITE_CHARS).describe('Exact text to replace.'),
    new_string: z.string().max(MAX_WRITE_CHARS).describe('Replacement text.'),
  }),
  async run({ path: p, old_string, new_string }, ctx) {
    // Read and rewritten through one handle: what was checked is what gets written.
    return withFile(await openProjectFile(ctx.projectDir, p, OPEN_READ_WRITE), (file) => replaceFirst(file, old_string, new_string));
  },
});

async function replaceFirst({ handle, shown, stat }: ProjectFile, old_string: string, new_string: string): Promise<string> {
  if (stat.size > MAX_EDIT_FILE_BYTES) {
    throw new LoomError(`${shown} is too large to edit (${stat.size} bytes; the limit is ${MAX_EDIT_FILE_BYTES}).`);
  }
  const buf = await handle.readFile();
  if (looksBinary(buf)) throw new LoomError(`${shown} looks like a binary file; edit_file edits text files only.`);
  const text = buf.toString('utf8');
  const at = text.indexOf(old_string);
  if (at === -1) {
    throw new LoomError(`old_string was not found in ${shown}. Read the file and copy the exact text, including whitespace and indentation.`);
  }
  if (old_string === new_string) throw new LoomError('old_string and new_string are identical; nothing to change.');
  const occurrences = countOccurrences(text, old_string);
  // Slicing, not String.replace: "$&" and friends in new_string must stay literal.
  const edited = text.slice(0, at) + new_string + text.slice(at + old_string.length);
  const out = Buffer.from(edited, 'utf8');
  try {
    await handle.truncate(0);
    await handle.write(out, 0, out.length, 0);
  } catch (err) {
    throw explainFsError(err, shown);
  }
  const line = text.slice(0, at).split('\n').length;
  const which = occurrences > 1 ? `the first of ${occurrences} occurrences` : 'the only occurrence';
  return `Edited ${shown}: replaced ${which} of old_string, at line ${line}.`;
}

export const FS_TOOLS = [readFileTool, globFilesTool, grepTool, writeFileTool, editFileTool];
