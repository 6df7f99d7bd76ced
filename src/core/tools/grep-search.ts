/**
 * The matching half of grep. A regular expression written by the model can backtrack
 * for minutes; matching runs inside a vm context with a timeout so such a pattern ends
 * the search (with partial results) instead of freezing the engine's process. Files are
 * read and matched in batches, one vm call per batch, which keeps the per-call cost of
 * the timeout watchdog small. Files are read asynchronously through the handles
 * project-walk.ts gives (regular files inside the project only).
 */
import vm from 'node:vm';
import { formatBytes } from '../../shared/byte-size';
import { LoomError } from '../errors';
import type { OpenedFile } from '../security/project-fs';
import { looksBinary } from '../security/file-kind';
import type { MatchedFile } from './project-walk';
import type { ToolContext } from './tool';

export const MAX_GREP_MATCHES = 200;
/** Files larger than this are skipped: generated bundles and data dumps, not source. */
const MAX_GREP_FILE_BYTES = 2 * 1024 * 1024;
const MAX_MATCH_LINE_CHARS = 300;
const BATCH_FILES = 64;
/**
 * Files being opened and read at once. Each costs several trips through libuv's thread
 * pool; overlapping them keeps a search of thousands of files from being one long queue.
 */
const LOADS_IN_FLIGHT = 16;

/** Inputs: source, texts (string[]), max. Output: JSON of [fileIndex, lineNumber, line][]. */
const MATCH_SCRIPT = new vm.Script(`(() => {
  const re = new RegExp(source);
  const found = [];
  for (let f = 0; f < texts.length && found.length < max; f++) {
    const lines = texts[f].split(/\\r?\\n/);
    for (let i = 0; i < lines.length && found.length < max; i++) {
      if (re.test(lines[i])) found.push([f, i + 1, lines[i]]);
    }
  }
  return JSON.stringify(found);
})()`);

type Loaded = { rel: string; text: string } | 'large' | 'binary' | null;

interface Scan {
  lines: string[];
  skippedLarge: number;
  skippedBinary: number;
  capped: boolean;
  timedOut: boolean;
}

function clip(line: string): string {
  return line.length > MAX_MATCH_LINE_CHARS ? `${line.slice(0, MAX_MATCH_LINE_CHARS)} …` : line;
}

/** A file's text, or why it is skipped. */
async function loadFile(file: MatchedFile): Promise<Loaded> {
  let opened: OpenedFile;
  try {
    opened = await file.open();
  } catch {
    return null; // vanished, unreadable, not a regular file, or a link leading out: nothing to search
  }
  try {
    const { size } = opened.stat;
    if (size > MAX_GREP_FILE_BYTES) return 'large';
    // One read of the size fstat gave: what was appended since is not searched.
    const { bytesRead, buffer } = await opened.handle.read(Buffer.alloc(size), 0, size, 0);
    const buf = buffer.subarray(0, bytesRead);
    return looksBinary(buf) ? 'binary' : { rel: file.rel, text: buf.toString('utf8') };
  } catch {
    return null;
  } finally {
    await opened.handle.close();
  }
}

function isVmTimeout(err: unknown): boolean {
  return (err as NodeJS.ErrnoException)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
}

/** Matches one batch; returns false when the time ran out. */
function matchBatch(scan: Scan, sandbox: vm.Context, source: string, batch: { rel: string; text: string }[], deadline: number): boolean {
  const room = MAX_GREP_MATCHES - scan.lines.length;
  Object.assign(sandbox, { source, texts: batch.map((f) => f.text), max: room + 1 });
  let found: [number, number, string][];
  try {
    found = JSON.parse(MATCH_SCRIPT.runInContext(sandbox, { timeout: Math.max(1, deadline - Date.now()) }) as string) as [number, number, string][];
  } catch (err) {
    if (!isVmTimeout(err)) throw err;
    return false;
  }
  for (const [f, n, text] of found.slice(0, room)) {
    const file = batch[f];
    if (file) scan.lines.push(`${file.rel}:${n}: ${clip(text)}`);
  }
  if (found.length > room) scan.capped = true;
  return true;
}

async function scanFiles(ctx: ToolContext, source: string, files: AsyncIterable<MatchedFile>): Promise<Scan> {
  const scan: Scan = { lines: [], skippedLarge: 0, skippedBinary: 0, capped: false, timedOut: false };
  const sandbox = vm.createContext({});
  const deadline = Date.now() + ctx.toolTimeoutMs;
  let batch: { rel: string; text: string }[] = [];
  let inBatch = 0;
  /** Matches the batch; true when the search must stop (match cap or time limit). */
  const matchNow = (): boolean => {
    scan.timedOut = !matchBatch(scan, sandbox, source, batch, deadline) || Date.now() >= deadline;
    batch = [];
    inBatch = 0;
    return scan.capped || scan.timedOut;
  };
  /** Counts one loaded file and matches the batch when it is full; true: stop. */
  const take = (loaded: Loaded): boolean => {
    if (loaded === 'large') scan.skippedLarge++;
    else if (loaded === 'binary') scan.skippedBinary++;
    else if (loaded) batch.push(loaded);
    return ++inBatch === BATCH_FILES && matchNow();
  };
  // Loads run ahead of the matching, in order; every one started is awaited, so no handle stays open.
  const loading: Promise<Loaded>[] = [];
  let stopped = false;
  try {
    for await (const file of files) {
      loading.push(loadFile(file)); // before the check below: a file handed over is always closed
      if (ctx.signal.aborted) throw new LoomError('grep was cancelled.');
      if (loading.length >= LOADS_IN_FLIGHT && take(await loading.shift()!)) {
        stopped = true;
        break; // leaving the loop closes the walk
      }
    }
    while (!stopped && loading.length) stopped = take(await loading.shift()!);
    if (!stopped && inBatch > 0) matchNow();
  } finally {
    await Promise.allSettled(loading);
  }
  return scan;
}

function notes(scan: Scan, timeoutMs: number): string[] {
  const out: string[] = [];
  if (scan.capped) out.push(`[Stopped at ${MAX_GREP_MATCHES} matches; narrow the pattern, path or include.]`);
  if (scan.timedOut) {
    out.push(`[grep stopped after ${Math.ceil(timeoutMs / 1000)} s; results are partial. Simplify the regular expression or narrow path/include.]`);
  }
  if (scan.skippedLarge) out.push(`[Skipped ${scan.skippedLarge} file(s) over ${formatBytes(MAX_GREP_FILE_BYTES)}.]`);
  if (scan.skippedBinary) out.push(`[Skipped ${scan.skippedBinary} binary file(s).]`);
  return out;
}

/** Searches `files` (in the order given) and formats the result. */
export async function grepFiles(ctx: ToolContext, source: string, files: AsyncIterable<MatchedFile>, where: string): Promise<string> {
  const scan = await scanFiles(ctx, source, files);
  const tail = notes(scan, ctx.toolTimeoutMs);
  if (scan.lines.length === 0) return [`No matches for /${source}/ in ${where}.`, ...tail].join('\n');
  return [...scan.lines, ...tail].join('\n');
}
