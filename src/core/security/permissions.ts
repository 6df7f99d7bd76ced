/**
 * Whether a tool call runs, is asked about, or is refused — before it runs.
 *
 * 1. Hard policy first, whatever the mode: paths outside the project folder, the shell
 *    denylist, webfetch of a non-http(s) URL or a non-public literal address → deny.
 * 2. Read, plan and ask_question tools always run; so do the memory tools, which touch
 *    only Loom's own store, never the user's files.
 * 3. Always-ask cases (force push, chmod 7xx, emptying a non-empty file) are asked in
 *    default and acceptEdits modes. dangerouslySkipPermissions runs them: that mode exists
 *    for unattended runs where nobody could answer, and the user chose it explicitly; the
 *    hard policy above still holds there.
 * 4. Writes whose path resolves inside the project folder run in acceptEdits; run_bash,
 *    webfetch and anything else run only in dangerouslySkipPermissions; default asks.
 *
 * The `label` of an ask says why the user is asked; the front end shows it with the
 * summary (the whole action, never cut) and ASK_PROMPT.
 */
import type { PermissionMode } from '../config';
import { counted } from '../counted';
import { errorMessage } from '../errors';
import { refuseWithoutLookup } from './net-policy';
import { checkShellCommand, resolveInsideProject, type ShellVerdict } from './policy';
import { OPEN_READ, openProjectFile } from './project-fs';

export type Decision = { action: 'allow' } | { action: 'ask'; label: string; summary: string } | { action: 'deny'; label: string };

/**
 * The kind of action a tool takes. It lives here, below the tools, because the decision
 * goes by it: each tool declares one (tools/tool.ts) and is judged by it.
 */
export type ToolCategory = 'read' | 'plan' | 'write' | 'exec' | 'network' | 'interact';

export interface DecideInput {
  tool: { name: string; category: ToolCategory };
  args: unknown;
  mode: PermissionMode;
  projectDir: string;
}

export const ASK_PROMPT = 'Allow this action? [y/n]';

/** Tools that change only Loom's store (long-term memory), never files: like plan tools. */
const STORE_ONLY_TOOLS = new Set(['memory_save', 'memory_search', 'memory_forget']);
const ALWAYS_RUN = new Set(['read', 'plan', 'interact']);

type Args = Record<string, unknown>;

export async function decide({ tool, args, mode, projectDir }: DecideInput): Promise<Decision> {
  const a: Args = typeof args === 'object' && args !== null ? (args as Args) : {};
  // Parsed once: the denylist (hard policy) and the always-ask list both judge it.
  const shell = tool.category === 'exec' && typeof a.command === 'string' ? await checkShellCommand(a.command) : null;
  const denied = await hardPolicy(tool, a, projectDir, shell);
  if (denied) return { action: 'deny', label: denied };
  if (ALWAYS_RUN.has(tool.category) || STORE_ONLY_TOOLS.has(tool.name)) return { action: 'allow' };
  if (mode === 'dangerouslySkipPermissions') return { action: 'allow' };

  const summary = summarize(tool.name, a);
  const always = await alwaysAskReason(tool.name, a, projectDir, shell);
  if (always) return { action: 'ask', label: `${always} (always asked)`, summary };
  if (tool.category === 'write' && typeof a.path === 'string') {
    return mode === 'acceptEdits' ? { action: 'allow' } : { action: 'ask', label: 'file change (default mode)', summary };
  }
  return { action: 'ask', label: `${categoryLabel(tool.category)} (asked unless dangerouslySkipPermissions)`, summary };
}

/** A reason to refuse outright, or null. */
async function hardPolicy(tool: DecideInput['tool'], a: Args, projectDir: string, shell: ShellVerdict | null): Promise<string | null> {
  if (typeof a.path === 'string') {
    try {
      await resolveInsideProject(projectDir, a.path);
    } catch (err) {
      return sentence(errorMessage(err));
    }
  }
  if (shell?.verdict === 'block') return `shell denylist: ${shell.label}`;
  if (tool.category === 'network' && typeof a.url === 'string') return urlRefusal(a.url);
  return null;
}

function urlRefusal(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null; // the tool reports a malformed URL to the model
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `only http and https URLs may be fetched, not ${url.protocol}`;
  const refusal = refuseWithoutLookup(url.hostname);
  return refusal ? sentence(refusal.message) : null;
}

async function alwaysAskReason(name: string, a: Args, projectDir: string, shell: ShellVerdict | null): Promise<string | null> {
  if (name === 'run_bash' && shell) {
    return shell.verdict === 'ask' ? (shell.label ?? 'risky shell command') : null;
  }
  if (name === 'write_file' && a.content === '' && typeof a.path === 'string') {
    return (await fileContent(projectDir, a.path)).length > 0 ? 'writing empty content over a non-empty file' : null;
  }
  if (name === 'edit_file' && a.new_string === '' && typeof a.path === 'string' && typeof a.old_string === 'string') {
    return (await editEmptiesFile(projectDir, a.path, a.old_string)) ? 'an edit that empties a non-empty file' : null;
  }
  return null;
}

/**
 * The file's bytes, up to one more than `limit` (enough to tell "exactly old_string" from
 * "more"); empty when it is missing or not a regular file, which the tool then reports.
 */
async function fileContent(projectDir: string, p: string, limit = 0): Promise<Buffer> {
  try {
    const file = await openProjectFile(projectDir, p, OPEN_READ);
    try {
      const buf = Buffer.alloc(limit + 1);
      const { bytesRead } = await file.handle.read(buf, 0, buf.length, 0);
      return buf.subarray(0, bytesRead);
    } finally {
      await file.handle.close();
    }
  } catch {
    return Buffer.alloc(0);
  }
}

/** edit_file replaces the first occurrence: the file ends up empty only if it is exactly old_string. */
async function editEmptiesFile(projectDir: string, p: string, oldString: string): Promise<boolean> {
  const expected = Buffer.from(oldString, 'utf8');
  return (await fileContent(projectDir, p, expected.length)).equals(expected);
}

function categoryLabel(category: string): string {
  if (category === 'exec') return 'shell command';
  if (category === 'network') return 'network access';
  if (category === 'write') return 'change';
  return 'action';
}

/**
 * What would happen, in full: the user approves exactly what they read. A header line, then
 * the whole command, the whole new content, or both sides of an edit. Front ends wrap or
 * scroll it; nothing is ever cut (guarantee 6 in docs/SECURITY.md).
 */
function summarize(name: string, a: Args): string {
  if (name === 'write_file' && typeof a.content === 'string') {
    return withBody(`write_file ${String(a.path)} (${formatBytes(Buffer.byteLength(a.content))})`, a.content);
  }
  if (name === 'edit_file' && typeof a.old_string === 'string' && typeof a.new_string === 'string') {
    const header = `edit_file ${String(a.path)} (replace ${lineCount(a.old_string)} with ${lineCount(a.new_string)})`;
    return `${header}\n--- replace:\n${a.old_string}\n+++ with:\n${a.new_string}`;
  }
  if (typeof a.command === 'string') return a.command.includes('\n') ? `${name}:\n${a.command}` : `${name}: ${a.command}`;
  if (typeof a.url === 'string') return `${name} ${a.url}`;
  return `${name} ${JSON.stringify(a)}`;
}

function withBody(header: string, body: string): string {
  return body ? `${header}\n${body}` : header;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

function lineCount(text: string): string {
  return counted(text === '' ? 0 : text.split('\n').length, 'line');
}

/** "Path "x" is outside the project folder." → `path "x" is outside the project folder`, for "Denied by policy (…)". */
function sentence(message: string): string {
  return (message.charAt(0).toLowerCase() + message.slice(1)).replace(/\.$/, '');
}
