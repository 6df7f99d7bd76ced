/**
 * How the terminal asks for an approval (docs/DESIGN.md#permissions-and-security): the whole action,
 * the diff against the file now for a change to an existing file, and the question, which
 * offers `a` ("allow for this session") when the engine offers a grant.
 */
import { describeGrant, type ApprovalAnswer, type ApprovalPreview, type GrantOffer, type SessionGrant } from '../shared/approvals';
import type { ApprovalDetails } from '../shared/engine-events';
import { terminalSafe } from './terminal-safe';

export function approvalText(request: ApprovalDetails): string {
  const diff = request.preview ? previewLines(request.preview) : [];
  return `Permission needed for ${request.tool} — ${request.label}:\n${indent([request.summary, ...diff].join('\n'))}`;
}

/** The question; the offer names model-chosen words (a command prefix), so it is made terminalSafe. */
export function askPrompt(offer: GrantOffer | null): string {
  return offer ? terminalSafe(`Allow this action? [y/n/a] (a: allow ${describeGrant(offer)} for the rest of this session) `) : 'Allow this action? [y/n] ';
}

export function isYes(answer: string | null): boolean {
  return /^\s*y(es)?\s*$/i.test(answer ?? '');
}

/** y: once; a: for the session, when offered; anything else (end of input included): deny. */
export function answerOf(line: string | null, offer: GrantOffer | null): ApprovalAnswer {
  if (isYes(line)) return 'once';
  if (offer && /^\s*a(lways)?\s*$/i.test(line ?? '')) return 'session';
  return 'deny';
}

/** `\grants`: the session's grants, numbered for `\revoke N`. */
export function grantsText(grants: readonly SessionGrant[]): string {
  if (!grants.length) return 'Nothing is allowed for this session beyond the mode. Answer "a" at an approval to allow a tool or a command prefix.';
  return ['Allowed for this session (\\revoke N takes one back):', ...grants.map((g, i) => `  ${i + 1}. ${describeGrant(g)}`)].join('\n');
}

/** A change to an existing file as numbered diff lines; a new file's content is the summary already. */
function previewLines(preview: ApprovalPreview): string[] {
  if (preview.kind !== 'file' || preview.newFile) return [];
  const width = String(Math.max(0, ...preview.hunks.flatMap((h) => h.lines.map((l) => Math.max(l.oldLine ?? 0, l.newLine ?? 0))))).length;
  const num = (n: number | null) => (n === null ? ' '.repeat(width) : String(n).padStart(width));
  const mark = { added: '+', removed: '-', context: ' ' } as const;
  return [
    `Diff against ${preview.path} as it is now:`,
    ...(preview.note ? [`(${preview.note})`] : []),
    ...preview.hunks.flatMap((hunk) => [
      `@@ line ${hunk.oldStart} → ${hunk.newStart} @@`,
      ...hunk.lines.map((l) => `${num(l.oldLine)} ${num(l.newLine)} ${mark[l.kind]} ${l.text}`),
    ]),
  ];
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
