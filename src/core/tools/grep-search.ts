/**
 * The matching half of grep. A regular expression written by the model can backtrack
 * for minutes; matching runs inside a vm context with a timeout so such a pattern ends
 * the search (with partial results) instead of freezing the engine's process. Files are
 * read and matched in batches, one vm call per batch, which keeps the per-call cost of
 * the timeout watchdog small; the event loop gets a turn between batches.
 */
import fs from 'node:fs';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import path from 'node:path';
import vm from 'node:vm';
import { LoomError } from '../errors';
import { resolveInsideProject } from '../security/policy';
import { looksBinary } from './file-kind';
import type { ToolContext } from './tool';

export const MAX_GREP_MATCHES = 200;
/** Files larger than this are skipped: generated bundles and data dumps, not source. */
const MAX_GREP_FILE_BYTES = 2 * 1024 * 1024;
const MAX_MATCH_LINE_CHARS = 300;
const BATCH_FILES = 64;

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

/**
 * A file's text, or why it is skipped. The listing never descends through symlinked
 * folders, so only a symlinked file itself can lead outside the project: those are
 * resolved and dropped when they do. Synchronous on purpose: for thousands of small
 * files it is several times faster than fs promises, and callers yield between batches.
 */
function loadFile(projectDir: string, rel: string): Loaded {
  try {
    let abs = path.join(projectDir, rel);
    if (fs.lstatSync(abs).isSymbolicLink()) abs = resolveInsideProject(projectDir, rel);
    const stat = fs.statSync(abs);
    if (!stat.isFile()) return null;
    if (stat.size > MAX_GREP_FILE_BYTES) return 'large';
    const buf = fs.readFileSync(abs);
    return looksBinary(buf) ? 'binary' : { rel, text: buf.toString('utf8') };
  } catch {
    return null; // vanished, unreadable, or outside the project: nothing to search
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
    found = JSON.parse(MATCH_SCRIPT.runInContext(sandbox, { timeout: Math.max(1, deadline - Date.now()) }) as string);
  } catch (err) {
    if (!isVmTimeout(err)) throw err;
    return false;
  }
  for (const [f, n, text] of found.slice(0, room)) scan.lines.push(`${batch[f].rel}:${n}: ${clip(text)}`);
  if (found.length > room) scan.capped = true;
  return true;
}

async function scanFiles(ctx: ToolContext, source: string, files: string[]): Promise<Scan> {
  const scan: Scan = { lines: [], skippedLarge: 0, skippedBinary: 0, capped: false, timedOut: false };
  const sandbox = vm.createContext({});
  const deadline = Date.now() + ctx.toolTimeoutMs;
  for (let start = 0; start < files.length && !scan.capped && !scan.timedOut; start += BATCH_FILES) {
    if (ctx.signal.aborted) throw new LoomError('grep was cancelled.');
    await yieldToEventLoop();
    const loaded = files.slice(start, start + BATCH_FILES).map((rel) => loadFile(ctx.projectDir, rel));
    scan.skippedLarge += loaded.filter((l) => l === 'large').length;
    scan.skippedBinary += loaded.filter((l) => l === 'binary').length;
    const batch = loaded.filter((l): l is { rel: string; text: string } => typeof l === 'object' && l !== null);
    scan.timedOut = !matchBatch(scan, sandbox, source, batch, deadline) || Date.now() >= deadline;
  }
  return scan;
}

function notes(scan: Scan, timeoutMs: number): string[] {
  const out: string[] = [];
  if (scan.capped) out.push(`[Stopped at ${MAX_GREP_MATCHES} matches; narrow the pattern, path or include.]`);
  if (scan.timedOut) {
    out.push(
      `[grep stopped after ${Math.ceil(timeoutMs / 1000)} s; results are partial. Simplify the regular expression or narrow path/include.]`,
    );
  }
  if (scan.skippedLarge) out.push(`[Skipped ${scan.skippedLarge} file(s) over ${MAX_GREP_FILE_BYTES / 1024 / 1024} MB.]`);
  if (scan.skippedBinary) out.push(`[Skipped ${scan.skippedBinary} binary file(s).]`);
  return out;
}

/** Searches `files` (paths relative to the project folder) and formats the result. */
export async function grepFiles(ctx: ToolContext, source: string, files: string[], where: string): Promise<string> {
  const scan = await scanFiles(ctx, source, files);
  const tail = notes(scan, ctx.toolTimeoutMs);
  if (scan.lines.length === 0) return [`No matches for /${source}/ in ${where}.`, ...tail].join('\n');
  return [...scan.lines, ...tail].join('\n');
}
