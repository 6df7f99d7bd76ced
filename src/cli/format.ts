/**
 * Text helpers for the `loom` command's human output: aligned tables, short unambiguous
 * ids, relative times, money and token counts. Pure functions, no I/O.
 */

export interface Column {
  header: string;
  align?: 'left' | 'right';
  /** The one column that is shortened when the table is wider than the terminal. */
  flex?: boolean;
}

/** Narrowest a flexible column gets, so a narrow terminal still shows something useful. */
const MIN_FLEX_WIDTH = 12;
const GAP = '  ';

/** Collapses whitespace (newlines included) so a value stays on its row. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Shortens to `width` characters (code points, so emoji are not split), ending with '…'. */
export function truncate(text: string, width: number): string {
  if (text.length <= width) return text; // never more code points than UTF-16 units
  const chars = Array.from(text);
  if (chars.length <= width) return text;
  if (width <= 1) return chars.slice(0, width).join('');
  return chars.slice(0, width - 1).join('') + '…';
}

/** Surrogate pairs: a code point outside the BMP counts once, though JavaScript counts two. */
const SURROGATE = /[\uD800-\uDFFF]/;

function displayWidth(text: string): number {
  // Splitting every cell into code points cost a listing of 200 sessions a millisecond.
  return SURROGATE.test(text) ? Array.from(text).length : text.length;
}

function pad(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const fill = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return align === 'right' ? fill + text : text + fill;
}

/**
 * Renders rows under a header with aligned columns. With `maxWidth` (a terminal's width),
 * the flexible column is truncated so each line fits; without it nothing is cut.
 * Returns one string per line (header first), without trailing spaces.
 */
export function renderTable(columns: Column[], rows: string[][], maxWidth?: number): [string, ...string[]] {
  const cells = rows.map((row) => row.map(oneLine));
  const sized = columns.map((col, i) => ({ ...col, width: Math.max(displayWidth(col.header), ...cells.map((row) => displayWidth(row[i] ?? ''))) }));
  const flexible = sized.find((col) => col.flex);
  if (maxWidth !== undefined && flexible) {
    const fixed = sized.reduce((sum, col) => (col === flexible ? sum : sum + col.width), 0) + GAP.length * (columns.length - 1);
    flexible.width = Math.min(flexible.width, Math.max(MIN_FLEX_WIDTH, maxWidth - fixed));
  }
  // A row has a cell for each column; a missing last cell would only add trailing spaces.
  const line = (row: string[]) =>
    sized
      .map((col, i) => pad(truncate(row[i] ?? '', col.width), col.width, col.align))
      .join(GAP)
      .trimEnd();
  return [line(columns.map((col) => col.header)), ...cells.map(line)];
}

/**
 * For each id in `shown`, the shortest prefix of at least `min` characters that names no
 * other id in `all` (so `loom --info PREFIX` finds exactly that session).
 */
export function uniquePrefixes(shown: string[], all: string[], min = 8): Map<string, string> {
  const sorted = [...new Set([...all, ...shown])].sort();
  const position = new Map(sorted.map((id, i) => [id, i]));
  const prefixes = new Map<string, string>();
  for (const id of shown) {
    const i = position.get(id)!;
    const shared = Math.max(commonPrefixLength(id, sorted[i - 1]), commonPrefixLength(id, sorted[i + 1]));
    prefixes.set(id, id.slice(0, Math.max(min, shared + 1)));
  }
  return prefixes;
}

function commonPrefixLength(a: string, b: string | undefined): number {
  if (b === undefined) return 0;
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", else the local date. */
export function relativeTime(iso: string, now: Date = new Date()): string {
  const then = new Date(iso);
  if (Number.isNaN(then.getTime())) return iso;
  const ago = now.getTime() - then.getTime();
  if (ago < MINUTE) return 'just now';
  if (ago < HOUR) return `${Math.floor(ago / MINUTE)} min ago`;
  if (ago < DAY) return `${Math.floor(ago / HOUR)} h ago`;
  if (ago < 2 * DAY) return 'yesterday';
  if (ago < 7 * DAY) return `${Math.floor(ago / DAY)} days ago`;
  return localDate(then);
}

/** "YYYY-MM-DD HH:MM" in the local time zone. */
export function localTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${localDate(date)} ${two(date.getHours())}:${two(date.getMinutes())}`;
}

function localDate(date: Date): string {
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`;
}

function two(n: number): string {
  return String(n).padStart(2, '0');
}

/** US dollars: cents for ordinary amounts, four decimals for the small amounts of a few calls. */
export function formatCost(usd: number): string {
  if (usd > 0 && usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

/**
 * A whole count with thousands separators, "12,345". Not toLocaleString: its first call
 * loads ICU's number formatting, ~10 ms of every `loom --list-sessions` (docs/DESIGN.md#command-line).
 */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  const groups: string[] = [];
  for (let end = digits.length; end > 0; end -= 3) groups.unshift(digits.slice(Math.max(0, end - 3), end));
  return `${n < 0 ? '-' : ''}${groups.join(',')}`;
}
