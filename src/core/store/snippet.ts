import { isFenced, restoreTags } from '../../shared/fences';

/** What FTS5's highlight() puts around each match here: characters no message carries. */
export const MATCH_OPEN = '\u0002';
export const MATCH_CLOSE = '\u0003';
const MARKS = /[\u0002\u0003]/g;
/** Words shown before the first match, so it reads in context. */
const LEAD_WORDS = 4;

/**
 * A snippet of about `words` words around the first match of a highlighted message, with
 * Loom's fences gone (a user sees what they typed, not `<user_input>`) and the matches
 * marked [like this]. A match inside a fence tag only (a search for "input") is dropped.
 */
export function snippetOf(highlighted: string, words: number): string {
  const text = restoreTags(withoutFence(highlighted));
  const all = text.split(/\s+/).filter(Boolean);
  const first = Math.max(
    0,
    all.findIndex((word) => word.includes(MATCH_OPEN)),
  );
  // Near the end, the window takes more words before the match rather than show fewer.
  const from = Math.max(0, Math.min(first - LEAD_WORDS, all.length - words));
  const to = Math.min(all.length, from + words);
  const window = balanceMarks(all.slice(from, to).join(' '));
  return `${from > 0 ? '…' : ''}${window}${to < all.length ? '…' : ''}`.replaceAll(MATCH_OPEN, '[').replaceAll(MATCH_CLOSE, ']');
}

/** The fence's first and last lines (the tags, which hold no newline) removed when the text is fenced. */
function withoutFence(highlighted: string): string {
  if (!isFenced(highlighted.replace(MARKS, ''))) return highlighted;
  return highlighted.slice(highlighted.indexOf('\n') + 1, highlighted.lastIndexOf('\n'));
}

/** Drops a close mark with no open one before it and closes a mark left open, so every [ has its ]. */
function balanceMarks(text: string): string {
  let open = false;
  let out = '';
  for (const char of text) {
    if (char === MATCH_OPEN) {
      if (open) continue;
      open = true;
    } else if (char === MATCH_CLOSE) {
      if (!open) continue;
      open = false;
    }
    out += char;
  }
  return open ? out + MATCH_CLOSE : out;
}
