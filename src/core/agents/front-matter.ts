/**
 * The YAML front matter of an agent file, read by a small strict parser rather than a YAML
 * library: agent files come from repositories Loom did not write, and the shapes the three
 * formats use are few. It reads block maps (nested by indentation), block lists (`- a`,
 * and `- key: value` items), flow lists (`[a, b]`), plain and quoted scalars, `|` and `>`
 * block text, and comments. Anything else (anchors, tags, flow maps, tabs) is an error
 * naming the line, never a guess.
 */
import { LoomError } from '../errors';

export type YamlValue = string | number | boolean | null | YamlValue[] | { [key: string]: YamlValue };
export type YamlMap = { [key: string]: YamlValue };

/** Front matter bigger than this is no agent definition. */
const MAX_FRONT_MATTER = 64 * 1024;

/** The file split into its front matter (parsed) and its body; a file without front matter has an empty map. */
export function splitFrontMatter(text: string): { data: YamlMap; body: string } {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') return { data: {}, body: text.trim() };
  const end = lines.findIndex((line, i) => i > 0 && line.trim() === '---');
  if (end < 0) throw new LoomError('the front matter has no closing "---" line', 'bad_agent');
  const head = lines.slice(1, end);
  if (head.join('\n').length > MAX_FRONT_MATTER) throw new LoomError('the front matter is over 64 KB', 'bad_agent');
  return {
    data: parseYamlSubset(head),
    body: lines
      .slice(end + 1)
      .join('\n')
      .trim(),
  };
}

interface Line {
  /** 1-based, counted from the first line after the opening "---" plus one. */
  no: number;
  indent: number;
  text: string;
}

function parseYamlSubset(raw: readonly string[]): YamlMap {
  const lines: Line[] = [];
  raw.forEach((text, i) => {
    const no = i + 2;
    if (/^\s*\t/.test(text)) throw lineError(no, 'a tab in the indentation');
    const stripped = stripComment(text);
    if (stripped.trim() === '') return;
    lines.push({ no, indent: stripped.length - stripped.trimStart().length, text: stripped.trim() });
  });
  const reader = new Reader(lines, raw);
  if (lines.length === 0) return {};
  const value = reader.block(lines[0]!.indent);
  const left = reader.peek();
  if (left) throw lineError(left.no, 'unexpected indentation');
  if (Array.isArray(value) || value === null || typeof value !== 'object') throw lineError(lines[0]!.no, 'the front matter must be "key: value" lines');
  return value;
}

class Reader {
  private at = 0;

  constructor(
    private readonly lines: Line[],
    /** The raw lines, for block text, which keeps what looks like comments. */
    private readonly raw: readonly string[],
  ) {}

  peek(): Line | undefined {
    return this.lines[this.at];
  }

  /** A map or a list whose lines are indented exactly `indent`. */
  block(indent: number): YamlValue {
    const first = this.peek();
    if (!first) return null;
    return isItem(first.text) ? this.list(indent) : this.map(indent);
  }

  private map(indent: number): YamlMap {
    const out: YamlMap = {};
    for (let line = this.peek(); line && line.indent === indent; line = this.peek()) {
      const match = /^("[^"]*"|'[^']*'|[^\s:'"][^:]*?)\s*:(?:\s+(.*))?$/.exec(line.text);
      if (!match) throw lineError(line.no, `expected "key: value", got "${cut(line.text)}"`);
      const key = unquote(match[1]!);
      if (Object.hasOwn(out, key)) throw lineError(line.no, `"${key}" is given twice`);
      this.at++;
      out[key] = this.valueAfter(line, match[2] ?? '');
    }
    return out;
  }

  private list(indent: number): YamlValue[] {
    const out: YamlValue[] = [];
    // The list ends at its first line that is no item: a list may sit at its key's indentation.
    for (let line = this.peek(); line && line.indent === indent && isItem(line.text); line = this.peek()) {
      const rest = line.text.slice(1).trimStart();
      if (rest === '') {
        this.at++;
        out.push(this.nested(line));
        continue;
      }
      // `- key: value` opens a map whose further keys line up with `key`.
      if (/^[^\s:'"[][^:]*?:(\s|$)/.test(rest) || /^("[^"]*"|'[^']*')\s*:(\s|$)/.test(rest)) {
        this.lines[this.at] = { no: line.no, indent: indent + (line.text.length - rest.length), text: rest };
        out.push(this.map(this.lines[this.at]!.indent));
        continue;
      }
      this.at++;
      out.push(scalar(rest, line.no));
    }
    return out;
  }

  /** What follows `key:` on its line: a scalar, a flow list, block text, or a nested block on the next lines. */
  private valueAfter(line: Line, rest: string): YamlValue {
    if (rest === '') return this.nested(line);
    if (rest === '|' || rest === '>' || rest === '|-' || rest === '>-') return this.blockText(line, rest.startsWith('>'));
    return scalar(rest, line.no);
  }

  /** The block indented under `parent`, or null when nothing is. A list may sit at its key's indentation. */
  private nested(parent: Line): YamlValue {
    const next = this.peek();
    if (!next) return null;
    if (next.indent > parent.indent) return this.block(next.indent);
    if (next.indent === parent.indent && isItem(next.text)) return this.list(next.indent);
    return null;
  }

  /** `|` keeps the lines, `>` folds them into one; read from the raw lines, so `#` stays text. */
  private blockText(parent: Line, folded: boolean): string {
    const taken: string[] = [];
    for (let no = parent.no + 1; no - 2 < this.raw.length; no++) {
      const text = this.raw[no - 2]!;
      if (text.trim() !== '' && text.length - text.trimStart().length <= parent.indent) break;
      taken.push(text);
    }
    const last = parent.no + taken.length;
    while (this.peek() && this.peek()!.no <= last) this.at++;
    const margin = Math.min(...taken.filter((t) => t.trim()).map((t) => t.length - t.trimStart().length));
    const text = taken.map((t) => t.slice(margin).trimEnd());
    return (folded ? text.join(' ').replace(/\s+/g, ' ') : text.join('\n')).trim();
  }
}

function isItem(text: string): boolean {
  return text === '-' || text.startsWith('- ');
}

function scalar(text: string, no: number): YamlValue {
  if (text.startsWith('[')) return flowList(text, no);
  if (/^[{&*!|>%@`]/.test(text)) throw lineError(no, `"${cut(text)}" uses YAML that agent files do not need (flow maps, anchors, tags)`);
  if (text.startsWith('"') || text.startsWith("'")) {
    const quote = text[0]!;
    if (text.length < 2 || !text.endsWith(quote)) throw lineError(no, `an unclosed ${quote === '"' ? 'double' : 'single'} quote`);
    return unquote(text);
  }
  if (text === 'true' || text === 'false') return text === 'true';
  if (text === 'null' || text === '~') return null;
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text;
}

function flowList(text: string, no: number): YamlValue[] {
  if (!text.endsWith(']')) throw lineError(no, 'a "[" list with no closing "]"');
  const inner = text.slice(1, -1).trim();
  if (inner === '') return [];
  const items: string[] = [];
  let current = '';
  let quote: string | null = null;
  for (const ch of inner) {
    if (quote) {
      current += ch;
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      current += ch;
    } else if (ch === ',') {
      items.push(current.trim());
      current = '';
    } else if (ch === '[' || ch === '{') {
      throw lineError(no, 'a list inside a "[" list');
    } else current += ch;
  }
  if (quote) throw lineError(no, 'an unclosed quote in a "[" list');
  items.push(current.trim());
  return items.map((item) => {
    if (item === '') throw lineError(no, 'an empty item in a "[" list');
    return scalar(item, no);
  });
}

/** The line without a trailing `# comment` (a `#` inside quotes, or not after a space, is text). */
function stripComment(text: string): string {
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '#' && (i === 0 || /\s/.test(text[i - 1]!))) return text.slice(0, i).trimEnd();
  }
  return text.trimEnd();
}

function unquote(text: string): string {
  if (text.startsWith("'")) return text.slice(1, -1).replace(/''/g, "'");
  if (!text.startsWith('"')) return text;
  return text.slice(1, -1).replace(/\\(["\\nt])/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c));
}

function cut(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function lineError(no: number, what: string): LoomError {
  return new LoomError(`line ${no}: ${what}`, 'bad_agent');
}
