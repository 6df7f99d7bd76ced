/**
 * The title a new branch gets (docs/DESIGN.md#branch-titles): what it is, after its
 * family's name, so that tabs, the sidebar and the family tree tell branches apart. The
 * title is marked as Loom's (title_by_loom): a branch of a branch gets its family's name,
 * not a growing chain of suffixes, and a title the user sets later is theirs.
 */
import type Database from 'better-sqlite3';
import { userText } from '../../shared/fences';
import type { ChatMessage } from '../../shared/types';
import { prepared } from './statements';
import { readTranscript } from './transcript-chain';

/** How a branch was made: a fork (the user's, or an import's), an edited message, a regenerated reply. */
export type BranchKind = { kind: 'fork' } | { kind: 'edit'; message: ChatMessage } | { kind: 'retry' };

const SEPARATOR = ' · ';
/** How many of the first messages are read for the words of the first user message, when a session has no name yet. */
const FIRST_MESSAGES = 8;

interface NamingRow {
  id: string;
  title: string | null;
  title_by_loom: number;
  summary: string | null;
}

/** One line, at most 80 characters, as a list shows a title; '' for blank text. */
function oneLine(text: string): string {
  const line = text.replace(/[\p{Cc}\s]+/gu, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** The family's name: the user's title, else the model's summary, else the first words the user sent. */
function familyName(db: Database.Database, pk: number, row: NamingRow): string {
  if (row.title !== null) return row.title_by_loom ? row.title.slice(0, Math.max(0, row.title.lastIndexOf(SEPARATOR))) || row.title : row.title;
  if (row.summary) return oneLine(row.summary);
  const first = readTranscript(db, pk, 0, FIRST_MESSAGES).find((m) => m.role === 'user');
  return (first && oneLine(userText(first.content))) || `Session ${row.id.slice(0, 8)}`;
}

/**
 * The title of a branch of session `source` at `point` (the messages it shares): "<name> ·
 * fork at 14", "<name> · edit 2", "<name> · retry 2", numbered by `place`, the branch's
 * place among those at that point (the original is 1, as the "2 / 2" switcher counts). An
 * edit of a session the user never titled is named by the edited words instead.
 */
export function branchTitle(db: Database.Database, source: number, point: number, branch: BranchKind, place: number): string {
  const row = prepared(db, 'SELECT id, title, title_by_loom, summary FROM sessions WHERE pk = ?').get(source) as NamingRow;
  if (branch.kind === 'edit' && row.title === null) {
    const words = branch.message.role === 'user' ? oneLine(userText(branch.message.content)) : '';
    if (words) return words;
  }
  const label = branch.kind === 'fork' ? `fork at ${point}` : `${branch.kind} ${place}`;
  return `${familyName(db, source, row)}${SEPARATOR}${label}`;
}
