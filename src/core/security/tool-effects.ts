/**
 * The effect a tool declares on its own definition (tools/tool.ts `effects`), with what the
 * permission gate needs to judge a call of it, read from the call's arguments: the file
 * change, the command, the URL. It lives here, below the tools, because the decision
 * (permissions.ts) goes by it; a new tool declares one and needs no edits anywhere else.
 */
import type { ToolEffect } from '../../shared/approvals';

/** The change a file-writing call makes. */
export type FileChange =
  /** The file's whole new content (created or overwritten). */
  | { path: string; kind: 'replace-all'; content: string }
  /** The first occurrence of `oldString` replaced by `newString`. */
  | { path: string; kind: 'replace-first'; oldString: string; newString: string };

export type EffectDeclaration<A> =
  /** Reads only; plans (the session's todo list and scratchpad); asks the user; changes only Loom's own store (memory). */
  | { kind: 'read' | 'plan' | 'interact' | 'loom-store' }
  | { kind: 'write-files'; change(args: A): FileChange }
  /** `command`: the shell command line; a tool whose action is not one (an MCP server's tool) declares none. */
  | { kind: 'run-commands'; command?(args: A): string }
  | { kind: 'network'; url(args: A): string };

/** Effects that touch nothing of the user's and reach nothing outside: they always run. */
export const HARMLESS_EFFECTS: ReadonlySet<ToolEffect> = new Set(['read', 'plan', 'interact', 'loom-store']);

/** Effects that change something or reach out: --approve-plan asks before the first one. */
export const ACTION_EFFECTS: ReadonlySet<ToolEffect> = new Set(['write-files', 'run-commands', 'network']);
