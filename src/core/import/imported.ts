/**
 * The neutral shape every importer turns another agent's files into, and that the writer
 * turns into Loom sessions (docs/DESIGN.md#importing-from-other-agents). Everything in it
 * came from another program's files: untrusted data, shown and searched, never obeyed.
 */
import type { AssistantMessage, CallUsage, ChatMessage, MessageFacts, ToolCall } from '../../shared/types';

/** What the source recorded of a message: when it was written and, for a reply, its model and tokens. */
export type SourceFacts = Partial<Pick<MessageFacts, 'at' | 'model' | 'prompt_tokens' | 'completion_tokens'>>;

/** One entry of a source conversation, keyed by something stable in the source (an entry id, a line number). */
export type ImportedItem =
  | { kind: 'message'; key: string; message: ChatMessage; facts?: SourceFacts }
  | {
      kind: 'compaction';
      key: string;
      summary: string;
      at: string;
      beforeTokens: number;
      /** The key of the first message the compacted context keeps; none kept when absent. */
      keptFrom?: string;
    };

export interface ImportedConversation {
  /** The source's own id for the session: with the source, the key a re-import finds it by. */
  sourceId: string;
  /**
   * For a sub-agent's conversation: the source id of the session that started it. Its Loom
   * session (the active line's) becomes this one's parent, a link only: no message is shared.
   */
  parentSourceId?: string;
  title: string | null;
  /** Information only: where the tool ran; never the folder Loom works in. */
  cwd: string | null;
  model: string | null;
  createdAt: string;
  updatedAt: string;
  /** The tokens and cost the source counted for the whole conversation, when it did. */
  usage?: CallUsage;
  /**
   * Every path from the root to a leaf, the active one first; paths share their common entries
   * by key. Read once, one path at a time: a file with many branches would otherwise hold the
   * sum of its paths at once, and a window's other requests are served between paths.
   */
  branches: Iterable<ImportedItem[]>;
}

/** The non-empty paths of `paths`, still produced one at a time; undefined when there is none. */
export function nonEmptyPaths(paths: Iterable<ImportedItem[]>): Iterable<ImportedItem[]> | undefined {
  const rest = (function* () {
    for (const path of paths) if (path.length > 0) yield path;
  })();
  const first = rest.next();
  if (first.done) return undefined;
  return (function* () {
    yield first.value;
    yield* rest;
  })();
}

/** What an importer made of one file. */
export interface ParsedFile {
  conversations: ImportedConversation[];
  /** Lines refused, as "file:line: reason". */
  refused: string[];
  /** Entry kinds this importer does not know, counted ("entry type \"x\""): skipped, reported in the summary. */
  notUnderstood: Map<string, number>;
}

export function emptyParse(): ParsedFile {
  return { conversations: [], refused: [], notUnderstood: new Map() };
}

/** A file's one JSON document; undefined, refused as `file:1` naming what was `expected`, when it is not valid JSON. */
export function readJsonDocument(text: string, file: string, expected: string, parsed: ParsedFile): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    parsed.refused.push(`${file}:1: not valid JSON (expected ${expected}), skipped`);
    return undefined;
  }
}

export function noteNotUnderstood(parsed: ParsedFile, what: string): void {
  parsed.notUnderstood.set(what, (parsed.notUnderstood.get(what) ?? 0) + 1);
}

/** A call whose name the source left out or empty is called "unknown": a strict server refuses an empty name. */
export function toolCall(id: string, name: string | undefined, args: unknown): ToolCall {
  return { id, type: 'function', function: { name: name?.trim() ? name : 'unknown', arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) } };
}

export function assistant(content: string | null, calls: ToolCall[] = []): AssistantMessage {
  return calls.length ? { role: 'assistant', content, tool_calls: calls } : { role: 'assistant', content };
}

/** A title as a list shows it: one line, at most 80 characters, no control characters. */
export function titleFrom(text: string | null | undefined): string | null {
  const line = clean((text ?? '').replace(/\s+/g, ' ')).trim();
  if (!line) return null;
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** Text without control characters (a cwd or title is printed to terminals, and an export refuses them in a cwd). */
export function clean(text: string): string {
  return text.replace(/\p{Cc}/gu, '');
}

export function isoTime(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const ms = typeof value === 'number' ? value : Date.parse(value);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

/** The text of a content value that is a string or a list of blocks (text blocks joined, images named). */
export function blockText(content: unknown, textTypes: readonly string[] = ['text']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content as unknown[]) {
    if (typeof block === 'string') parts.push(block);
    else if (isRecord(block) && textTypes.includes(String(block.type)) && typeof block.text === 'string') parts.push(block.text);
    else if (isRecord(block) && /image/.test(String(block.type))) parts.push('[image]');
  }
  return parts.join('\n');
}

/**
 * How deep an entry may nest. An agent's entries nest a few dozen levels at most; far deeper
 * ones are hostile, and would overflow the stack of every recursive reader after the parse
 * (JSON.stringify of a tool call's arguments first).
 */
export const MAX_ENTRY_DEPTH = 256;

/** Whether arrays and objects in `value` nest deeper than `MAX_ENTRY_DEPTH`; walked without recursion. */
export function nestedTooDeeply(value: unknown): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    const depth = next.depth + 1;
    if (depth > MAX_ENTRY_DEPTH) return true;
    for (const child of Object.values(next.value)) stack.push({ value: child, depth });
  }
  return false;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Earliest and latest of some ISO times; `fallback` for both when there are none. */
export function timeSpan(times: Iterable<string | undefined>, fallback: string): { createdAt: string; updatedAt: string } {
  let min: string | undefined;
  let max: string | undefined;
  for (const t of times) {
    if (!t) continue;
    if (!min || t < min) min = t;
    if (!max || t > max) max = t;
  }
  return { createdAt: min ?? fallback, updatedAt: max ?? fallback };
}
