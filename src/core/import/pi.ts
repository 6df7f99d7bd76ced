/**
 * pi: one JSONL per session under ~/.pi/agent/sessions/--<cwd>--/
 * (docs/DESIGN.md#importing-from-other-agents). Line 1 is the header; version 1 entries
 * are a line (keyed by line number, compactions keep from an entry index), version 2 and
 * later a tree by id/parentId whose last entry is the active leaf; every other leaf is a
 * branch. Tool results are their own messages (role toolResult), paired by toolCallId.
 */
import path from 'node:path';
import type { ChatMessage } from '../../shared/types';
import {
  assistant,
  blockText,
  clean,
  emptyParse,
  nonEmptyPaths,
  isRecord,
  isoTime,
  noteNotUnderstood,
  str,
  timeSpan,
  titleFrom,
  toolCall,
  type ImportedItem,
  type ParsedFile,
} from './imported';
import { readJsonLines } from './jsonl';

/** The newest header version this importer was written against. */
const KNOWN_VERSION = 3;
const KNOWN_ENTRIES = new Set([
  'message',
  'compaction',
  'model_change',
  'thinking_level_change',
  'branch_summary',
  'label',
  'session_info',
  'custom',
  'custom_message',
]);
/** Message roles that are pi's own display (summaries shown in its UI, extension messages), not conversation. */
const DISPLAY_ROLES = new Set(['custom', 'hookMessage', 'branchSummary', 'compactionSummary']);

interface Entry {
  key: string;
  parentKey?: string;
  value: Record<string, unknown>;
}

export function parsePi(text: string, file: string): ParsedFile {
  const parsed = emptyParse();
  const lines = readJsonLines(text, file, parsed);
  const [first] = lines;
  const header = first?.value;
  if (header?.type !== 'session') {
    if (first) parsed.refused.push(`${file}:${first.line}: not a pi session header ({"type":"session",…}), file skipped`);
    return parsed;
  }
  const version = typeof header.version === 'number' ? header.version : 1;
  if (version > KNOWN_VERSION) noteNotUnderstood(parsed, `pi session version ${version} (read as version ${KNOWN_VERSION})`);
  const tree = version >= 2;
  const entries: Entry[] = [];
  const byIndex: string[] = ['header'];
  lines.slice(1).forEach(({ line, value }) => {
    const key = tree && typeof value.id === 'string' ? value.id : `L${line}`;
    byIndex.push(key);
    const previous = entries.at(-1)?.key;
    entries.push({ key, parentKey: tree ? (str(value.parentId) ?? undefined) : previous, value });
    if (!KNOWN_ENTRIES.has(str(value.type) ?? '')) noteNotUnderstood(parsed, `pi entry type ${JSON.stringify(value.type)}`);
  });

  const context = { byIndex, title: undefined as string | undefined, model: undefined as string | undefined, firstPrompt: undefined as string | undefined };
  const leaves = leavesOf(entries);
  const nodes = treeOf(entries, leaves, (entry) => entryItems(entry, context, parsed));
  const branches = nonEmptyPaths(pathsTo(leaves.map((leaf) => nodes.get(leaf) as Node)));
  if (!branches) return parsed;

  const times = entries.map((e) => isoTime(e.value.timestamp) ?? isoTime(isRecord(e.value.message) ? e.value.message.timestamp : undefined));
  const span = timeSpan([isoTime(header.timestamp), ...times], new Date(0).toISOString());
  parsed.conversations.push({
    sourceId: str(header.id) ?? path.basename(file, '.jsonl'),
    title: titleFrom(context.title ?? context.firstPrompt),
    cwd: typeof header.cwd === 'string' ? clean(header.cwd) : null,
    model: context.model ?? str(header.modelId) ?? null,
    ...span,
    branches,
  });
  return parsed;
}

interface Context {
  byIndex: string[];
  title?: string;
  model?: string;
  firstPrompt?: string;
}

function entryItems(entry: Entry, context: Context, parsed: ParsedFile): ImportedItem[] {
  const { key, value } = entry;
  switch (value.type) {
    case 'session_info':
      context.title = str(value.name) ?? context.title;
      return [];
    case 'model_change':
      context.model = str(value.modelId) ?? context.model;
      return [];
    case 'compaction': {
      const keptFrom = str(value.firstKeptEntryId) ?? (typeof value.firstKeptEntryIndex === 'number' ? context.byIndex[value.firstKeptEntryIndex] : undefined);
      const item: ImportedItem = {
        kind: 'compaction',
        key,
        summary: str(value.summary) ?? '',
        at: isoTime(value.timestamp) ?? new Date(0).toISOString(),
        beforeTokens: typeof value.tokensBefore === 'number' ? value.tokensBefore : 0,
      };
      return [keptFrom === undefined ? item : { ...item, keptFrom }];
    }
    case 'message': {
      const message = isRecord(value.message) ? value.message : {};
      // Version 2+ entries carry their own time; version 1 only the message's (epoch ms).
      const at = isoTime(value.timestamp) ?? isoTime(message.timestamp);
      return messageItems(key, message, context, parsed).map((item) => (at && item.kind === 'message' ? { ...item, facts: { ...item.facts, at } } : item));
    }
    default:
      return [];
  }
}

function messageItems(key: string, message: Record<string, unknown>, context: Context, parsed: ParsedFile): ImportedItem[] {
  const role = str(message.role) ?? '';
  const one = (m: ChatMessage): ImportedItem[] => [{ kind: 'message', key, message: m }];
  switch (role) {
    case 'user': {
      const text = blockText(message.content);
      context.firstPrompt ??= text;
      return text.trim() ? one({ role: 'user', content: text }) : [];
    }
    case 'assistant': {
      const blocks = Array.isArray(message.content) ? (message.content as unknown[]).filter(isRecord) : [];
      const calls = blocks.filter((b) => b.type === 'toolCall' && typeof b.id === 'string').map((b) => toolCall(String(b.id), str(b.name), b.arguments));
      if (typeof message.model === 'string') context.model = message.model;
      return [{ kind: 'message', key, message: assistant(blockText(blocks) || null, calls), ...(context.model && { facts: { model: context.model } }) }];
    }
    case 'toolResult': {
      const result = blockText(message.content);
      return typeof message.toolCallId === 'string'
        ? one({ role: 'tool', tool_call_id: message.toolCallId, content: message.isError === true ? `Error: ${result}` : result })
        : [];
    }
    case 'bashExecution':
      // The user's own `!` command: what the model was shown of it.
      return one({ role: 'user', content: `Ran \`${str(message.command) ?? ''}\`\n${str(message.output) ?? ''}`.trim() });
    default:
      if (!DISPLAY_ROLES.has(role)) noteNotUnderstood(parsed, `pi message role ${JSON.stringify(role)}`);
      return [];
  }
}

/** The last entry (pi's current leaf) first, then every other leaf in file order. */
function leavesOf(entries: Entry[]): Entry[] {
  const parents = new Set(entries.map((e) => e.parentKey));
  const leaves = entries.filter((e) => !parents.has(e.key));
  const last = entries.at(-1);
  return last ? [last, ...leaves.filter((leaf) => leaf !== last)] : leaves;
}

/** An entry in the tree: its items, and its parent resolved once (paths are walked once per leaf). */
interface Node {
  items: ImportedItem[];
  parent?: Node;
}

/**
 * Each entry's node, linked to its parent's. A parent link that would close a loop (a
 * hostile file) is cut where the walk up from a leaf meets the loop, so every walk up ends
 * at a root, and a leaf's path holds each entry of the loop once.
 */
function treeOf(entries: Entry[], leaves: Entry[], itemsOf: (entry: Entry) => ImportedItem[]): Map<Entry, Node> {
  const byKey = new Map(entries.map((e) => [e.key, e]));
  const nodes = new Map(entries.map((e) => [e, { items: itemsOf(e) }]));
  const state = new Map<Entry, 'walking' | 'done'>();
  for (const start of [...leaves, ...entries]) {
    const walked: Entry[] = [];
    for (let e: Entry | undefined = start; e && !state.has(e);) {
      state.set(e, 'walking');
      walked.push(e);
      const parent: Entry | undefined = e.parentKey === undefined ? undefined : byKey.get(e.parentKey);
      if (parent && state.get(parent) !== 'walking') (nodes.get(e) as Node).parent = nodes.get(parent);
      e = parent;
    }
    for (const e of walked) state.set(e, 'done');
  }
  return nodes;
}

/** Each leaf's path, made when it is read. */
function* pathsTo(leaves: Node[]): Generator<ImportedItem[]> {
  for (const leaf of leaves) {
    const chain: Node[] = [];
    for (let node: Node | undefined = leaf; node; node = node.parent) chain.push(node);
    const items: ImportedItem[] = [];
    for (const node of chain.reverse()) for (const item of node.items) items.push(item);
    yield items;
  }
}
