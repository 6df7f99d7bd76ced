/**
 * Codex: one rollout JSONL per session under ~/.codex/sessions/YYYY/MM/DD/
 * (docs/DESIGN.md#importing-from-other-agents). The model-visible history is the
 * response_item lines (older files: bare items after an {id, timestamp, instructions}
 * line); event_msg lines are the UI's copy of it and are read only for the title. Calls
 * join the assistant message before them; `compacted` lines are compactions. A file is
 * append-only, so a line's number is its key.
 */
import path from 'node:path';
import type { ChatMessage } from '../../shared/types';
import {
  assistant,
  blockText,
  clean,
  emptyParse,
  isRecord,
  isoTime,
  noteNotUnderstood,
  str,
  timeSpan,
  titleFrom,
  toolCall,
  type ImportedItem,
  type ParsedFile,
  type SourceFacts,
} from './imported';
import { readJsonLines } from './jsonl';

const LINE_TYPES = new Set([
  'session_meta',
  'response_item',
  'event_msg',
  'turn_context',
  'compacted',
  'world_state',
  'inter_agent_communication',
  'inter_agent_communication_metadata',
]);
/** Context Codex puts in user messages itself: not typed by the user. */
const INJECTED = /^\s*(# AGENTS\.md instructions for|<environment_context>|<user_instructions>|<subagent_notification>|<turn_aborted>)/;
/** Items with no result and nothing for a chat transcript (reasoning is encrypted; searches have no output item). */
const SILENT_ITEMS = new Set(['reasoning', 'web_search_call', 'image_generation_call', 'compaction', 'compaction_summary', 'ghost_snapshot']);

interface State {
  items: ImportedItem[];
  /** The assistant message calls join until a user message or a result of another turn. */
  lastAssistant?: { kind: 'message'; key: string; message: ChatMessage; facts?: SourceFacts };
  model?: string;
  title?: string;
  firstPrompt?: string;
  /** When the line being read was written: its messages' time. */
  at?: string;
}

export function parseCodex(text: string, file: string): ParsedFile {
  const parsed = emptyParse();
  const state: State = { items: [] };
  const fileId = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/.exec(file)?.[1];
  let meta: Record<string, unknown> | undefined;
  const times: (string | undefined)[] = [];

  for (const { line, value } of readJsonLines(text, file, parsed)) {
    const key = `L${line}`;
    state.at = isoTime(value.timestamp);
    if (typeof value.type !== 'string' || !('payload' in value)) {
      // The legacy layout: a bare first line {id, timestamp, instructions}, then bare items.
      if (line === 1 || (meta === undefined && typeof value.id === 'string' && 'instructions' in value)) meta ??= value;
      else if (value.record_type === 'state') continue;
      else readItem(state, key, value, parsed);
      times.push(isoTime(value.timestamp));
      continue;
    }
    times.push(isoTime(value.timestamp));
    const payload = isRecord(value.payload) ? value.payload : {};
    switch (value.type) {
      case 'session_meta':
        if (!meta || (fileId !== undefined && payload.id === fileId && meta.id !== fileId)) meta = payload;
        break;
      case 'turn_context':
        state.model = str(payload.model) ?? state.model;
        break;
      case 'response_item':
        readItem(state, key, payload, parsed);
        break;
      case 'compacted':
        state.items.push({
          kind: 'compaction',
          key,
          summary: str(payload.message) || '(Codex compacted this session on its server; the file holds no summary.)',
          at: isoTime(value.timestamp) ?? new Date(0).toISOString(),
          beforeTokens: 0,
        });
        state.lastAssistant = undefined;
        break;
      case 'event_msg':
        if (payload.type === 'thread_name_updated') state.title = str(payload.thread_name) ?? state.title;
        break;
      default:
        if (!LINE_TYPES.has(value.type)) noteNotUnderstood(parsed, `codex line type ${JSON.stringify(value.type)}`);
    }
  }

  if (state.items.length === 0) return parsed;
  const created = isoTime(meta?.timestamp);
  const span = timeSpan([created, ...times], new Date(0).toISOString());
  parsed.conversations.push({
    sourceId: str(meta?.id) ?? fileId ?? path.basename(file, '.jsonl'),
    title: titleFrom(state.title ?? state.firstPrompt),
    cwd: typeof meta?.cwd === 'string' ? clean(meta.cwd) : null,
    model: state.model ?? str(meta?.model) ?? null,
    createdAt: created ?? span.createdAt,
    updatedAt: span.updatedAt,
    branches: [state.items],
  });
  return parsed;
}

/** Whether a line is a Codex session's first: a session_meta line, or the legacy bare {id, timestamp, instructions}. */
export function isCodexHeader(line: string | undefined): boolean {
  let value: unknown;
  try {
    value = JSON.parse(line ?? '');
  } catch {
    return false;
  }
  if (!isRecord(value)) return false;
  if (value.type === 'session_meta') return isRecord(value.payload) && typeof value.payload.id === 'string';
  return !('type' in value) && typeof value.id === 'string' && typeof value.timestamp === 'string';
}

function readItem(state: State, key: string, item: Record<string, unknown>, parsed: ParsedFile): void {
  const type = str(item.type) ?? '';
  switch (type) {
    case 'message':
      return readMessage(state, key, item);
    case 'function_call':
      return addCall(state, key, str(item.call_id), str(item.name), str(item.arguments) ?? '{}');
    case 'custom_tool_call':
      return addCall(state, key, str(item.call_id), str(item.name), JSON.stringify({ input: item.input }));
    case 'local_shell_call':
      return addCall(state, key, str(item.call_id) ?? str(item.id), 'local_shell', JSON.stringify(item.action ?? {}));
    case 'tool_search_call':
      return addCall(state, key, str(item.call_id), 'tool_search', JSON.stringify(item.arguments ?? item.query ?? {}));
    case 'function_call_output':
    case 'custom_tool_call_output':
    case 'tool_search_output':
      if (typeof item.call_id === 'string')
        state.items.push({ kind: 'message', key, message: { role: 'tool', tool_call_id: item.call_id, content: outputText(item) }, facts: factsOf(state) });
      return;
    default:
      if (!SILENT_ITEMS.has(type)) noteNotUnderstood(parsed, `codex item type ${JSON.stringify(type)}`);
  }
}

function readMessage(state: State, key: string, item: Record<string, unknown>): void {
  const text = blockText(item.content, ['input_text', 'output_text', 'text']);
  if (item.role === 'user') {
    if (!text.trim() || INJECTED.test(text)) return;
    state.firstPrompt ??= text;
    state.items.push({ kind: 'message', key, message: { role: 'user', content: text }, facts: factsOf(state) });
    state.lastAssistant = undefined;
  } else if (item.role === 'assistant') {
    const entry = { kind: 'message' as const, key, message: assistant(text || null), facts: factsOf(state, true) };
    state.items.push(entry);
    state.lastAssistant = entry;
  }
  // developer and system messages are Codex's own instructions, not the conversation.
}

/** A call joins the assistant message it follows while no other message came between; else it opens one. */
function addCall(state: State, key: string, callId: string | undefined, name: string | undefined, args: string): void {
  if (!callId) return;
  const call = toolCall(callId, name, args);
  const last = state.lastAssistant;
  if (last && last.message.role === 'assistant' && state.items.at(-1) === last) {
    last.message = assistant(last.message.content, [...(last.message.tool_calls ?? []), call]);
    return;
  }
  const entry = { kind: 'message' as const, key, message: assistant(null, [call]), facts: factsOf(state, true) };
  state.items.push(entry);
  state.lastAssistant = entry;
}

/** The line's time and, for a reply, the model of the turn (turn_context). */
function factsOf(state: State, reply = false): SourceFacts {
  return { ...(state.at && { at: state.at }), ...(reply && state.model && { model: state.model }) };
}

function outputText(item: Record<string, unknown>): string {
  const output = item.output ?? item.tools;
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return blockText(output, ['input_text', 'output_text', 'text']);
  if (isRecord(output) && typeof output.content === 'string') return output.content;
  return JSON.stringify(output ?? '');
}
