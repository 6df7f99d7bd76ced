import { isFenceLine, isFenced, restoreTags } from '../../shared/fences';

/** What FTS5's highlight() puts around each match here: characters no message carries. */
export const MATCH_OPEN = '\u0002';
export const MATCH_CLOSE = '\u0003';
const MARKS = /[\u0002\u0003]/g;
/** Words shown before the first match, so it reads in context. */
const LEAD_WORDS = 4;
/**
 * At most this many characters before the first match, and in all: long words (a path, a
 * URL, a line of code) would otherwise push the match past what the sidebar's two lines show.
 */
const LEAD_CHARS = 40;
const MAX_CHARS = 160;

/**
 * A snippet of about `words` words around the first match of a highlighted message, with
 * Loom's fences gone (a user sees what they typed, not `<user_input>`) and the matches
 * marked [like this]. A match inside a fence tag only (a search for "input") is dropped.
 */
export function snippetOf(highlighted: string, words: number): string {
  const text = shownText(highlighted);
  const all = text.split(/\s+/).filter(Boolean);
  const first = Math.max(
    0,
    all.findIndex((word) => word.includes(MATCH_OPEN)),
  );
  // Near the end, the window takes more words before the match rather than show fewer.
  const from = Math.max(0, Math.min(first - LEAD_WORDS, all.length - words));
  const to = Math.min(all.length, from + words);
  const chars = Array.from(all.slice(from, to).join(' '));
  const start = leadStart(chars);
  const end = Math.min(chars.length, start + MAX_CHARS);
  const window = balanceMarks(chars.slice(start, end).join(''));
  const before = from > 0 || start > 0;
  const after = to < all.length || end < chars.length;
  return `${before ? '…' : ''}${window}${after ? '…' : ''}`.replaceAll(MATCH_OPEN, '[').replaceAll(MATCH_CLOSE, ']');
}

/** Where the window starts so that at most LEAD_CHARS come before the first match: at a word when one starts in time. */
function leadStart(chars: string[]): number {
  const match = chars.indexOf(MATCH_OPEN);
  if (match <= LEAD_CHARS) return 0;
  const earliest = match - LEAD_CHARS;
  const space = chars.indexOf(' ', earliest);
  return space >= 0 && space < match ? space + 1 : earliest;
}

/** A message's text as the transcript shows it: Loom's fence tag lines gone, the tags inside them as the user typed them. */
export function shownText(text: string): string {
  return restoreTags(withoutFence(text));
}

/**
 * The fence tag lines removed when the text is fenced: a tool result's first and last, a user
 * message's around the words and around each attached file (inside, every tag is defused).
 */
function withoutFence(highlighted: string): string {
  if (!isFenced(highlighted.replace(MARKS, ''))) return highlighted;
  return highlighted
    .split('\n')
    .filter((line) => !isFenceLine(line.replace(MARKS, '')))
    .join('\n');
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
