/**
 * String steps of bash word expansion that the denylist replays on literal text: ANSI-C
 * quotes (`$'\x72m'`), brace expansion (`{rm,-rf,/}`, `/{usr,etc}`) and backslash removal.
 */

/** Brace expansion yields at most this many words; past it the line is not judged. */
export const MAX_BRACE_WORDS = 256;

/** A brace expansion too large to replay: the caller refuses the line instead of guessing. */
export class TooManyWords extends Error {
  constructor() {
    super(`a brace expansion of more than ${MAX_BRACE_WORDS} words`);
  }
}

/** The value of the body of a `$'…'` string. */
export function decodeAnsiC(body: string): string {
  const simple: Record<string, string> = {
    n: '\n',
    t: '\t',
    r: '\r',
    a: '\x07',
    b: '\b',
    e: '\x1b',
    E: '\x1b',
    f: '\f',
    v: '\v',
    '\\': '\\',
    "'": "'",
    '"': '"',
    '?': '?',
  };
  return body.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (whole, code: string) => {
    if (/^[xuU]/.test(code)) return String.fromCodePoint(parseInt(code.slice(1), 16));
    if (/^[0-7]/.test(code)) return String.fromCharCode(parseInt(code, 8) & 0xff);
    if (code.startsWith('c')) return String.fromCharCode(code.charCodeAt(1) & 0x1f);
    return simple[code] ?? whole;
  });
}

/**
 * Bash's brace expansion of one word whose quoted characters are already backslash-escaped:
 * `a{b,c}d` → `abd acd`, `{1..3}` → `1 2 3`; escapes are kept for removeEscapes.
 * TooManyWords past MAX_BRACE_WORDS.
 */
export function expandBraces(word: string): string[] {
  const results: string[] = [];
  const queue = [word];
  while (queue.length) {
    const current = queue.shift()!;
    const group = firstBraceGroup(current);
    if (!group) {
      results.push(current);
    } else {
      const head = current.slice(0, group.open);
      const tail = current.slice(group.close + 1);
      queue.push(...group.alternatives.map((alt) => head + alt + tail));
    }
    if (results.length + queue.length > MAX_BRACE_WORDS) throw new TooManyWords();
  }
  return results;
}

/** The first `{a,b}` or `{1..3}` group outside escapes, with its alternatives. */
function firstBraceGroup(word: string): { open: number; close: number; alternatives: string[] } | null {
  for (let open = 0; open < word.length; open++) {
    if (word[open] === '\\') {
      open++;
      continue;
    }
    if (word[open] !== '{' || word[open + 1] === '}') continue;
    const parts: string[] = [];
    let depth = 0;
    let start = open + 1;
    for (let i = open + 1; i < word.length; i++) {
      const c = word[i];
      if (c === '\\') i++;
      else if (c === '{') depth++;
      else if (c === '}' && depth > 0) depth--;
      else if (c === ',' && depth === 0) {
        parts.push(word.slice(start, i));
        start = i + 1;
      } else if (c === '}') {
        const last = word.slice(start, i);
        parts.push(last);
        if (parts.length > 1) return { open, close: i, alternatives: parts };
        const range = sequence(last);
        if (range) return { open, close: i, alternatives: range };
        break;
      }
    }
  }
  return null;
}

/** `1..5`, `a..e`, `10..1..3`: bash's sequence expressions; null for anything else. */
function sequence(body: string): string[] | null {
  const [, start, end, by] = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(body) ?? [];
  if (start === undefined || end === undefined) return null;
  const numeric = /\d/.test(start);
  if (numeric !== /\d/.test(end)) return null;
  const from = numeric ? Number(start) : start.charCodeAt(0);
  const to = numeric ? Number(end) : end.charCodeAt(0);
  const step = Math.abs(Number(by ?? 1)) || 1;
  if (Math.abs(to - from) / step > MAX_BRACE_WORDS) throw new TooManyWords();
  const out: string[] = [];
  for (let v = from; from <= to ? v <= to : v >= to; v += from <= to ? step : -step) {
    out.push(numeric ? String(v) : String.fromCharCode(v));
  }
  return out;
}

/** Removes the backslashes that protect characters (quoting already applied). */
export function removeEscapes(text: string): string {
  return text.replace(/\\(.)/gs, '$1');
}

/** Protects every character so that brace expansion and escape removal leave it as is. */
export function escapeAll(text: string): string {
  return text.replace(/[\\{},]/g, '\\$&');
}
