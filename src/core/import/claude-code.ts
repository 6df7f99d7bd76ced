/**
 * Claude Code: one JSONL file per session under ~/.claude/projects/<project>/, entries
 * linked by uuid/parentUuid (docs/DESIGN.md#importing-from-other-agents). The file is read
 * in order; a real user prompt starts a turn, every other entry joins the turn of its
 * parent. A prompt whose parent is not where its turn's parent turn ends (a rewind or an
 * edit) starts a branch there; the branch with the newest entry is the active one. Lines of
 * one API response (same message.id) are one assistant message; compact_boundary plus the
 * summary entry after it are a compaction; sub-agent files (sidechains) import as sessions
 * of their own.
 */
import path from 'node:path';
import type { ChatMessage, ToolCall } from '../../shared/types';
import {
  assistant,
  blockText,
  emptyParse,
  nonEmptyPaths,
  isRecord,
  isoTime,
  noteNotUnderstood,
  str,
  timeSpan,
  titleFrom,
  clean,
  toolCall,
  type ImportedItem,
  type ParsedFile,
  type SourceFacts,
} from './imported';
import { readJsonLines } from './jsonl';

const CONVERSATION_TYPES = new Set(['user', 'assistant', 'system', 'attachment', 'progress']);
const METADATA_TYPES = new Set([
  'summary',
  'ai-title',
  'custom-title',
  'agent-name',
  'last-prompt',
  'permission-mode',
  'file-history-snapshot',
  'queue-operation',
  'mode',
  'pr-link',
  'worktree-state',
]);
/** Slash commands, `!` shell mode and their output: the tool's own UI, not conversation. */
const WRAPPERS = /^\s*<(command-name|command-message|local-command-stdout|local-command-stderr|local-command-caveat|bash-input|bash-stdout|bash-stderr)>/;
const CONTINUED = 'This session is being continued from a previous conversation that ran out of context';

type Entry = Record<string, unknown>;

interface Turn {
  items: ImportedItem[];
  parent?: { turn: Turn; at: number };
  children: Turn[];
  latest: string;
}

interface State {
  turns: Turn[];
  /** Per entry uuid: its turn and how many items that turn had after it. */
  placed: Map<string, { turn: Turn; at: number }>;
  /** The assistant message being assembled from the lines of one API response. */
  open?: { id: string; turn: Turn; item: { kind: 'message'; key: string; message: ChatMessage; facts?: SourceFacts } };
  /** The compact_boundary waiting for its summary entry. */
  boundary?: { key: string; at: string; beforeTokens: number };
}

export function parseClaudeCode(text: string, file: string): ParsedFile {
  const parsed = emptyParse();
  const state: State = { turns: [], placed: new Map() };
  const titles: { custom?: string; ai?: string; summaries: Map<string, string> } = { summaries: new Map() };
  let sessionId: string | undefined;
  let agentId: string | undefined;
  let cwd: string | undefined;
  let model: string | undefined;
  let firstPrompt: string | undefined;
  const times: string[] = [];
  const byUuid = new Map<string, Entry>();
  const stem = path.basename(file, '.jsonl');
  const sidechain = stem.startsWith('agent-');

  for (const { line, value: entry } of readJsonLines(text, file, parsed)) {
    const type = str(entry.type) ?? '';
    if (METADATA_TYPES.has(type)) {
      if (type === 'custom-title') titles.custom = str(entry.customTitle) ?? titles.custom;
      if (type === 'ai-title') titles.ai = str(entry.aiTitle) ?? titles.ai;
      if (type === 'summary' && typeof entry.leafUuid === 'string' && typeof entry.summary === 'string') titles.summaries.set(entry.leafUuid, entry.summary);
      continue;
    }
    if (!CONVERSATION_TYPES.has(type)) {
      noteNotUnderstood(parsed, `claude-code entry type ${JSON.stringify(type)}`);
      continue;
    }
    const uuid = str(entry.uuid);
    if (!uuid) {
      parsed.refused.push(`${file}:${line}: a ${type} entry without a uuid, skipped`);
      continue;
    }
    if (byUuid.has(uuid)) continue; // a resumed session replays earlier entries
    if (entry.isSidechain === true && !sidechain) continue; // older versions kept sub-agents inline; their own files say more
    byUuid.set(uuid, entry);
  }
  const visit = (uuid: string, entry: Entry) => {
    noteNewerVersion(entry.version, parsed);
    sessionId ??= str(entry.sessionId);
    agentId ??= str(entry.agentId);
    cwd ??= str(entry.cwd);
    const at = isoTime(entry.timestamp);
    if (at) times.push(at);
    const message = isRecord(entry.message) ? entry.message : {};
    if (entry.type === 'assistant' && typeof message.model === 'string' && message.model !== '<synthetic>') model = message.model;
    const prompt = entry.type === 'user' ? promptText(entry, message) : undefined;
    if (prompt !== undefined) firstPrompt ??= prompt;
    place(state, uuid, entry, prompt, at ?? '');
  };
  // File order, but a parent before its child: a few entries are written before their parent.
  for (const uuid of byUuid.keys()) for (const ancestor of unplacedLine(uuid, byUuid, state.placed)) visit(ancestor, byUuid.get(ancestor) as Entry);

  const branches = nonEmptyPaths(branchesOf(state.turns));
  if (!branches) return parsed;
  const fallback = new Date(0).toISOString();
  const summary = [...titles.summaries].find(([leaf]) => state.placed.has(leaf))?.[1];
  parsed.conversations.push({
    sourceId: sidechain ? `${sessionId ?? 'unknown'}/${stem}` : (sessionId ?? stem),
    ...(sidechain && sessionId !== undefined && { parentSourceId: sessionId }),
    title: titleFrom(
      titles.custom ?? titles.ai ?? summary ?? (sidechain ? [`Sub-agent ${agentId ?? stem}`, firstPrompt].filter(Boolean).join(': ') : firstPrompt),
    ),
    cwd: cwd === undefined ? null : clean(cwd),
    model: model ?? null,
    ...timeSpan(times, fallback),
    branches,
  });
  return parsed;
}

/**
 * The entry and its ancestors not placed yet, root first: a loop, not a recursion, since a
 * chain written child-first may be as long as the file (a parent cycle ends the walk).
 */
function unplacedLine(uuid: string, byUuid: Map<string, Entry>, placed: Map<string, unknown>): string[] {
  const line: string[] = [];
  const seen = new Set<string>();
  for (let at: string | undefined = uuid; at !== undefined && !placed.has(at) && !seen.has(at);) {
    seen.add(at);
    line.push(at);
    const entry = byUuid.get(at) as Entry;
    const parent = str(entry.parentUuid) ?? str(entry.logicalParentUuid);
    at = parent !== undefined && byUuid.has(parent) ? parent : undefined;
  }
  return line.reverse();
}

/** The newest major version this importer was written against (2.1.x). */
const KNOWN_MAJOR = 2;

/** Counted once per entry, so the summary says how much of the file was read by a guess. */
function noteNewerVersion(version: unknown, parsed: ParsedFile): void {
  const major = typeof version === 'string' ? Number.parseInt(version, 10) : NaN;
  if (major > KNOWN_MAJOR) noteNotUnderstood(parsed, `claude-code version ${major}.x entries (read as version ${KNOWN_MAJOR}.x)`);
}

/** The text of a real user prompt; undefined for tool results, meta entries, command wrappers and summaries. */
function promptText(entry: Entry, message: Entry): string | undefined {
  if (entry.isMeta === true || entry.isCompactSummary === true) return undefined;
  const content = message.content;
  if (Array.isArray(content) && content.some((block) => isRecord(block) && block.type === 'tool_result')) return undefined;
  const text = blockText(content);
  if (!text.trim() || WRAPPERS.test(text) || text.startsWith(CONTINUED)) return undefined;
  return text;
}

function place(state: State, uuid: string, entry: Entry, prompt: string | undefined, at: string): void {
  const parentUuid = str(entry.parentUuid) ?? str(entry.logicalParentUuid);
  const parent = parentUuid === undefined ? undefined : state.placed.get(parentUuid);
  let turn: Turn;
  if (prompt !== undefined || !parent) {
    turn = { items: [], children: [], latest: at, parent: parent && { ...parent } };
    parent?.turn.children.push(turn);
    state.turns.push(turn);
  } else turn = parent.turn;
  if (at > turn.latest) turn.latest = at;
  addItems(state, turn, uuid, entry, prompt, at);
  state.placed.set(uuid, { turn, at: turn.items.length });
}

function addItems(state: State, turn: Turn, uuid: string, entry: Entry, prompt: string | undefined, at: string): void {
  const message = isRecord(entry.message) ? entry.message : {};
  if (entry.type === 'system' && entry.subtype === 'compact_boundary') {
    const meta = isRecord(entry.compactMetadata) ? entry.compactMetadata : {};
    state.boundary = { key: uuid, at, beforeTokens: typeof meta.preTokens === 'number' ? meta.preTokens : 0 };
    return;
  }
  const facts: SourceFacts | undefined = at ? { at } : undefined;
  if (entry.type === 'assistant') return addAssistant(state, turn, uuid, message, facts);
  if (entry.type !== 'user') return;
  const text = blockText(message.content);
  if (entry.isCompactSummary === true || text.startsWith(CONTINUED)) {
    const boundary = state.boundary ?? { key: uuid, at, beforeTokens: 0 };
    turn.items.push({ kind: 'compaction', key: boundary.key, summary: text, at: boundary.at || at, beforeTokens: boundary.beforeTokens });
    state.boundary = undefined;
    return;
  }
  if (prompt !== undefined) {
    turn.items.push({ kind: 'message', key: uuid, message: { role: 'user', content: prompt }, facts });
    return;
  }
  for (const block of Array.isArray(message.content) ? (message.content as unknown[]) : []) {
    if (!isRecord(block) || block.type !== 'tool_result' || typeof block.tool_use_id !== 'string') continue;
    const result = blockText(block.content);
    turn.items.push({
      kind: 'message',
      key: `${uuid}:${block.tool_use_id}`,
      message: { role: 'tool', tool_call_id: block.tool_use_id, content: block.is_error === true ? `Error: ${result}` : result },
      facts,
    });
  }
}

/** Each line holds one content block; the lines of one response (message.id) make one message, as old as its first line. */
function addAssistant(state: State, turn: Turn, uuid: string, message: Entry, facts: SourceFacts | undefined): void {
  const id = str(message.id) ?? uuid;
  const blocks = Array.isArray(message.content) ? (message.content as unknown[]).filter(isRecord) : [];
  const text = blocks
    .filter((b) => b.type === 'text')
    .map((b) => str(b.text) ?? '')
    .join('\n');
  const calls: ToolCall[] = blocks.filter((b) => b.type === 'tool_use' && typeof b.id === 'string').map((b) => toolCall(String(b.id), str(b.name), b.input));
  const open = state.open;
  if (open && open.id === id && open.turn === turn && open.item.message.role === 'assistant') {
    const current = open.item.message;
    const content = [current.content, text].filter(Boolean).join('\n') || null;
    open.item.message = assistant(content, [...(current.tool_calls ?? []), ...calls]);
    return;
  }
  const model = typeof message.model === 'string' && message.model !== '<synthetic>' ? message.model : undefined;
  const item = { kind: 'message' as const, key: uuid, message: assistant(text || null, calls), facts: { ...facts, ...(model && { model }) } };
  turn.items.push(item);
  state.open = { id, turn, item };
}

/** Every root-to-leaf path of turns, the one with the newest entry first, each made when it is read. */
function* branchesOf(turns: Turn[]): Generator<ImportedItem[]> {
  const leaves = turns.filter((turn) => turn.children.length === 0);
  const newest = (turn: Turn): string => turn.latest;
  leaves.sort((a, b) => (newest(b) > newest(a) ? 1 : newest(b) < newest(a) ? -1 : 0));
  for (const leaf of leaves) yield pathTo(leaf);
}

function pathTo(leaf: Turn): ImportedItem[] {
  const parts: ImportedItem[][] = [leaf.items];
  for (let turn = leaf; turn.parent; turn = turn.parent.turn) parts.push(turn.parent.turn.items.slice(0, turn.parent.at));
  return parts.reverse().flat();
}
