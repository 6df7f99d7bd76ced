import type Database from 'better-sqlite3';
import type { TranscriptSeq } from '../../shared/engine-events';
import { matchesAll, searchTerms, termPatterns } from '../../shared/search-terms';
import { shownText } from './snippet';
import { readTranscriptText } from './transcript-chain';

/**
 * Find in session (docs/DESIGN.md#find-in-session): the transcript positions, in order, of
 * the messages holding every term of `query` as the transcript shows them (fences gone,
 * case-insensitive, "quoted words" as a phrase). A scan of the session's whole transcript
 * along its fork chain, rows shared with a parent included, not the FTS index: its tokens
 * (stemmed, whole words) would disagree with what the transcript highlights, which is any
 * occurrence of the text. System prompts are left out, as they are of search.
 */
export function findInSession(db: Database.Database, pk: number, query: string): TranscriptSeq[] {
  const patterns = termPatterns(searchTerms(query));
  if (patterns.length === 0) return [];
  const matches: TranscriptSeq[] = [];
  readTranscriptText(db, pk).forEach((row, seq) => {
    if (row.role === 'system') return;
    const text = [row.content, row.tool_text].flatMap((part) => (part ? [shownText(part)] : [])).join('\n');
    if (matchesAll(text, patterns)) matches.push(seq);
  });
  return matches;
}
