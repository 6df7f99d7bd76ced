/**
 * What an approval shows and what the user may answer (docs/DESIGN.md#permissions-and-security): the
 * effect the tool declares, a preview of the change (a diff as data, never HTML), and the
 * grant "allow for this session" would make. Plain data: it crosses IPC and SSE unchanged.
 */

/**
 * What a tool does, as it declares it on its own definition (src/core/tools/tool.ts): the
 * permission gate decides by it, and the windows learn it from the engine's events.
 */
export type ToolEffect = 'read' | 'plan' | 'interact' | 'loom-store' | 'write-files' | 'run-commands' | 'network';

export interface DiffLine {
  kind: 'added' | 'removed' | 'context';
  text: string;
  /** The line's number in the file before (removed, context) and after (added, context). */
  oldLine: number | null;
  newLine: number | null;
}

export interface DiffHunk {
  oldStart: number;
  newStart: number;
  lines: DiffLine[];
}

/** What an approval previews: a file change as a diff against the file now, or a whole command. */
export type ApprovalPreview =
  | {
      kind: 'file';
      path: string;
      /** The file does not exist yet: every line is added. */
      newFile: boolean;
      hunks: DiffHunk[];
      /** Why the diff lacks the file around the change (too large, unreadable), or null. */
      note: string | null;
    }
  | { kind: 'command'; command: string };

/** "Allow for this session": every call of a tool, or a command tool's calls whose plain command starts with `prefix`. */
export type GrantOffer = { kind: 'tool'; tool: string } | { kind: 'prefix'; tool: string; prefix: string[] };

export type SessionGrant = GrantOffer & { id: string };

/** The user's answer to an approval. */
export const APPROVAL_ANSWERS = ['once', 'session', 'deny'] as const;
export type ApprovalAnswer = (typeof APPROVAL_ANSWERS)[number];

/** How a front end names a grant: `every edit_file call`, `run_bash commands starting with "npm test"`. */
export function describeGrant(grant: GrantOffer): string {
  return grant.kind === 'tool' ? `every ${grant.tool} call` : `${grant.tool} commands starting with "${grant.prefix.join(' ')}"`;
}
