/**
 * The matching half of grep. A regular expression written by the model can backtrack
 * for minutes; matching runs inside a vm context with a timeout so such a pattern ends
 * the search (with partial results) instead of freezing the engine's process.
 */
import fsp from 'node:fs/promises';
import vm from 'node:vm';
import { LoomError } from '../errors';
import type { ToolContext } from './tool';
import { looksBinary } from './file-kind';
import { resolveInsideProject } from '../security/policy';

export const MAX_GREP_MATCHES = 200;
/** Files larger than this are skipped: generated bundles and data dumps, not source. */
export const MAX_GREP_FILE_BYTES = 2 * 1024 * 1024;
const MAX_MATCH_LINE_CHARS = 300;

const MATCH_SCRIPT = new vm.Script(`(() => {
  const re = new RegExp(source);
  const lines = text.split(/\\r?\\n/);
  const found = [];
  for (let i = 0; i < lines.length && found.length < max; i++) {
    if (re.test(lines[i])) found.push([i + 1, lines[i]]);
  }
  return JSON.stringify(found);
})()`);

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

/** Matching lines of one file as [lineNumber, text]; throws the vm timeout error when too slow. */
function matchText(sandbox: vm.Context, source: string, text: string, max: number, timeoutMs: number): [number, string][] {
  Object.assign(sandbox, { source, text, max });
  return JSON.parse(MATCH_SCRIPT.runInContext(sandbox, { timeout: Math.max(1, timeoutMs) }) as string);
}

/** A listed file may be a symlink leading out of the project: such files are not read. */
function insideOrNull(projectDir: string, rel: string): string | null {
  try {
    return resolveInsideProject(projectDir, rel);
  } catch {
    return null;
  }
}

function isVmTimeout(err: unknown): boolean {
  return (err as NodeJS.ErrnoException)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
}

async function scanFiles(ctx: ToolContext, source: string, files: string[]): Promise<Scan> {
  const scan: Scan = { lines: [], skippedLarge: 0, skippedBinary: 0, capped: false, timedOut: false };
  const sandbox = vm.createContext({});
  const deadline = Date.now() + ctx.toolTimeoutMs;
  for (const rel of files) {
    if (ctx.signal.aborted) throw new LoomError('grep was cancelled.');
    const abs = insideOrNull(ctx.projectDir, rel);
    if (!abs) continue;
    const stat = await fsp.stat(abs).catch(() => null);
    if (!stat?.isFile()) continue;
    if (stat.size > MAX_GREP_FILE_BYTES) {
      scan.skippedLarge++;
      continue;
    }
    const buf = await fsp.readFile(abs).catch(() => null);
    if (!buf) continue;
    if (looksBinary(buf)) {
      scan.skippedBinary++;
      continue;
    }
    const room = MAX_GREP_MATCHES - scan.lines.length;
    try {
      const found = matchText(sandbox, source, buf.toString('utf8'), room + 1, deadline - Date.now());
      for (const [n, text] of found.slice(0, room)) scan.lines.push(`${rel}:${n}: ${clip(text)}`);
      if (found.length > room) scan.capped = true;
    } catch (err) {
      if (!isVmTimeout(err)) throw err;
      scan.timedOut = true;
    }
    if (scan.capped || scan.timedOut || Date.now() >= deadline) {
      scan.timedOut ||= Date.now() >= deadline;
      break;
    }
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
