/**
 * Whether a tool call runs, is asked about, or is refused — before it runs. It goes by the
 * effect the tool declares (tool-effects.ts), never by tool names:
 *
 * 1. Hard policy first, whatever the mode: paths outside the project folder, the shell
 *    denylist, fetching a non-http(s) URL or a non-public literal address → deny.
 * 2. Reading, planning, asking the user and Loom's own store (memory) always run.
 * 3. Always-ask cases (force push, chmod 7xx, emptying a non-empty file) are asked in
 *    default and acceptEdits modes, and no session grant covers them.
 *    dangerouslySkipPermissions runs them: that mode exists for unattended runs where nobody
 *    could answer, and the user chose it explicitly; the hard policy above still holds there.
 * 4. A session grant ("allow for this session": the tool, or a command prefix of a plain
 *    simple command) runs the call without asking.
 * 5. A command known to be safe (known-safe.ts: `ls`, `cat` of a project file, `git
 *    status`, …) runs without asking, inside the sandbox like every command.
 * 6. File writes run in acceptEdits; other commands, network and anything else run only in
 *    dangerouslySkipPermissions; default asks.
 *
 * The `label` of an ask says why the user is asked; the front end shows it with the
 * summary (the whole action, never cut), the preview (a diff, the whole command) and the
 * grant it may offer.
 */
import type { ApprovalPreview, GrantOffer, SessionGrant, ToolEffect } from '../../shared/approvals';
import type { PermissionMode } from '../config';
import { formatBytes } from '../../shared/byte-size';
import { counted } from '../counted';
import { errorMessage } from '../errors';
import { fileChangePreview } from './change-preview';
import { knownSafeCommands } from './known-safe';
import { refuseWithoutLookup } from './net-policy';
import { checkShellCommand, resolveInsideProject, type ShellVerdict } from './policy';
import { OPEN_READ, openProjectFile } from './project-fs';
import type { SessionGrants } from './session-grants';
import { offeredPrefix, plainCommandWords } from './shell-prefix';
import { HARMLESS_EFFECTS, type EffectDeclaration, type FileChange } from './tool-effects';

export type Decision =
  /** `grant`: the session grant that spared the ask; `knownSafe`: the known-safe commands that did. */
  | { action: 'allow'; grant?: SessionGrant; knownSafe?: string[] }
  /** `offer`: what "allow for this session" would grant; null for the always-ask cases. */
  | { action: 'ask'; label: string; summary: string; preview: ApprovalPreview | null; offer: GrantOffer | null }
  | { action: 'deny'; label: string };

export interface DecideInput {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- deliberate: any tool, whatever its argument type.
  tool: { name: string; effects: EffectDeclaration<any> };
  /** Validated against the tool's schema. */
  args: unknown;
  mode: PermissionMode;
  projectDir: string;
  grants?: SessionGrants;
}

type Args = Record<string, unknown>;

/** What a call does, read from its arguments through the tool's declaration. */
interface Effect {
  change: FileChange | null;
  command: string | null;
  url: string | null;
}

export async function decide({ tool, args, mode, projectDir, grants }: DecideInput): Promise<Decision> {
  const a: Args = typeof args === 'object' && args !== null ? (args as Args) : {};
  const declared = tool.effects;
  const effect: Effect = {
    change: declared.kind === 'write-files' ? declared.change(args) : null,
    command: declared.kind === 'run-commands' ? (declared.command?.(args) ?? null) : null,
    url: declared.kind === 'network' ? declared.url(args) : null,
  };
  // Parsed once: the denylist (hard policy) and the always-ask list both judge it.
  const shell = effect.command !== null ? await checkShellCommand(effect.command) : null;
  const denied = await hardPolicy(a, effect, projectDir, shell);
  if (denied) return { action: 'deny', label: denied };
  if (HARMLESS_EFFECTS.has(declared.kind)) return { action: 'allow' };
  if (mode === 'dangerouslySkipPermissions') return { action: 'allow' };

  const ask = async (label: string, offer: GrantOffer | null): Promise<Decision> => ({
    action: 'ask',
    label,
    summary: summarize(tool.name, a, effect),
    preview: await previewOf(projectDir, effect),
    offer,
  });
  const always = await alwaysAskReason(effect, projectDir, shell);
  if (always) return ask(`${always} (always asked)`, null);
  const words = effect.command !== null ? await plainCommandWords(effect.command) : null;
  const grant = grants?.covering(tool.name, words);
  if (grant) return { action: 'allow', grant };
  const knownSafe = effect.command !== null ? await knownSafeCommands(effect.command, projectDir) : null;
  if (knownSafe) return { action: 'allow', knownSafe };
  if (effect.change) return mode === 'acceptEdits' ? { action: 'allow' } : ask('file change (default mode)', { kind: 'tool', tool: tool.name });
  // A command is offered as a prefix, and only when it is one plain simple command.
  const offer: GrantOffer | null =
    effect.command === null ? { kind: 'tool', tool: tool.name } : words ? { kind: 'prefix', tool: tool.name, prefix: offeredPrefix(words) } : null;
  return ask(`${effectLabel(declared.kind, effect.command !== null)} (asked unless dangerouslySkipPermissions)`, offer);
}

async function previewOf(projectDir: string, effect: Effect): Promise<ApprovalPreview | null> {
  if (effect.change) return fileChangePreview(projectDir, effect.change);
  if (effect.command !== null) return { kind: 'command', command: effect.command };
  return null;
}

/** A reason to refuse outright, or null. */
async function hardPolicy(a: Args, effect: Effect, projectDir: string, shell: ShellVerdict | null): Promise<string | null> {
  // Any argument named path, and the file a write declares, must resolve inside the project.
  for (const p of new Set([a.path, effect.change?.path])) {
    if (typeof p !== 'string') continue;
    try {
      await resolveInsideProject(projectDir, p);
    } catch (err) {
      return sentence(errorMessage(err));
    }
  }
  if (shell?.verdict === 'block') return `shell denylist: ${shell.label}`;
  if (effect.url !== null) return urlRefusal(effect.url);
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

async function alwaysAskReason(effect: Effect, projectDir: string, shell: ShellVerdict | null): Promise<string | null> {
  if (shell) return shell.verdict === 'ask' ? (shell.label ?? 'risky shell command') : null;
  const change = effect.change;
  if (change?.kind === 'replace-all' && change.content === '') {
    return (await fileContent(projectDir, change.path)).length > 0 ? 'writing empty content over a non-empty file' : null;
  }
  if (change?.kind === 'replace-first' && change.newString === '') {
    return (await editEmptiesFile(projectDir, change.path, change.oldString)) ? 'an edit that empties a non-empty file' : null;
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

/** `shellLine`: the call declares the shell command it runs (run_bash); an MCP tool declares none. */
function effectLabel(effect: ToolEffect, shellLine: boolean): string {
  if (effect === 'run-commands') return shellLine ? 'shell command' : 'tool that may run commands';
  if (effect === 'network') return 'network access';
  if (effect === 'write-files') return 'change';
  return 'action';
}

/**
 * What would happen, in full: the user approves exactly what they read. A header line, then
 * the whole command, the whole new content, or both sides of an edit. Front ends wrap or
 * scroll it; nothing is ever cut (guarantee 6 in docs/SECURITY.md).
 */
function summarize(name: string, a: Args, { change, command, url }: Effect): string {
  if (change?.kind === 'replace-all') return withBody(`${name} ${change.path} (${formatBytes(Buffer.byteLength(change.content))})`, change.content);
  if (change?.kind === 'replace-first') {
    const header = `${name} ${change.path} (replace ${lineCount(change.oldString)} with ${lineCount(change.newString)})`;
    return `${header}\n--- replace:\n${change.oldString}\n+++ with:\n${change.newString}`;
  }
  if (command !== null) return command.includes('\n') ? `${name}:\n${command}` : `${name}: ${command}`;
  if (url !== null) return `${name} ${url}`;
  return `${name} ${JSON.stringify(a)}`;
}

function withBody(header: string, body: string): string {
  return body ? `${header}\n${body}` : header;
}

function lineCount(text: string): string {
  return counted(text === '' ? 0 : text.split('\n').length, 'line');
}

/** "Path "x" is outside the project folder." → `path "x" is outside the project folder`, for "Denied by policy (…)". */
function sentence(message: string): string {
  return (message.charAt(0).toLowerCase() + message.slice(1)).replace(/\.$/, '');
}
