/**
 * opencode: the JSON `opencode export <id>` prints, {info, messages: [{info, parts}]}
 * (docs/DESIGN.md#importing-from-other-agents). One tool part holds a call and its
 * result; a user message with a compaction part and the summary assistant message after
 * it are a compaction; messages a revert undid are a branch of their own beside the one
 * the session goes on with. Message and part ids are the keys.
 */
import path from 'node:path';
import type { ChatMessage, ToolCall } from '../../shared/types';
import {
  MAX_ENTRY_DEPTH,
  assistant,
  clean,
  nestedTooDeeply,
  emptyParse,
  isRecord,
  isoTime,
  noteNotUnderstood,
  str,
  titleFrom,
  toolCall,
  type ImportedItem,
  type ParsedFile,
} from './imported';

const KNOWN_PARTS = new Set(['text', 'reasoning', 'tool', 'step-start', 'step-finish', 'patch', 'snapshot', 'retry', 'file', 'compaction', 'subtask', 'agent']);
/** opencode's placeholder titles: the session has no real one yet. */
const PLACEHOLDER_TITLE = /^(New session|Child session) - /;

type Part = Record<string, unknown>;

export function parseOpencode(text: string, file: string): ParsedFile {
  const parsed = emptyParse();
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    parsed.refused.push(`${file}:1: not valid JSON (expected what \`opencode export\` prints), skipped`);
    return parsed;
  }
  if (!isRecord(doc) || !isRecord(doc.info) || !Array.isArray(doc.messages)) {
    parsed.refused.push(`${file}:1: not an opencode export ({"info": …, "messages": […]}), skipped`);
    return parsed;
  }
  const info = doc.info;
  const revertedFrom = isRecord(info.revert) ? str(info.revert.messageID) : undefined;
  const all: ImportedItem[] = [];
  let kept: ImportedItem[] | undefined;
  let model: string | undefined;
  let firstPrompt: string | undefined;
  let compacting = false;
  for (const [index, raw] of (doc.messages as unknown[]).entries()) {
    if (!isRecord(raw) || !isRecord(raw.info)) continue;
    if (nestedTooDeeply(raw)) {
      parsed.refused.push(`${file}: message ${index + 1} nested deeper than ${MAX_ENTRY_DEPTH} levels, skipped`);
      continue;
    }
    const id = str(raw.info.id) ?? `m${all.length}`;
    const at = isoTime(timeOf(raw.info));
    const facts = at ? { at } : undefined;
    if (id === revertedFrom) kept = [...all];
    const parts = (Array.isArray(raw.parts) ? (raw.parts as unknown[]) : []).filter(isRecord);
    for (const part of parts) if (!KNOWN_PARTS.has(str(part.type) ?? '')) noteNotUnderstood(parsed, `opencode part type ${JSON.stringify(part.type)}`);
    if (raw.info.role === 'user') {
      if (parts.some((p) => p.type === 'compaction')) {
        compacting = true;
        continue;
      }
      const prompt = userText(parts);
      firstPrompt ??= prompt;
      if (prompt) all.push({ kind: 'message', key: id, message: { role: 'user', content: prompt }, facts });
    } else if (raw.info.role === 'assistant') {
      model = str(raw.info.modelID) ?? model;
      if (compacting || raw.info.summary === true) {
        all.push({ kind: 'compaction', key: id, summary: textOf(parts), at: isoTime(timeOf(raw.info)) ?? new Date(0).toISOString(), beforeTokens: 0 });
        compacting = false;
        continue;
      }
      all.push(...assistantItems(id, parts).map((item) => ({ ...item, facts: { ...facts, ...(model && { model }) } })));
    } else noteNotUnderstood(parsed, `opencode message role ${JSON.stringify(raw.info.role)}`);
  }
  if (all.length === 0) return parsed;
  const time = isRecord(info.time) ? info.time : {};
  const created = isoTime(time.created) ?? new Date(0).toISOString();
  const title = str(info.title);
  parsed.conversations.push({
    sourceId: str(info.id) ?? path.basename(file, '.json'),
    title: titleFrom(title && !PLACEHOLDER_TITLE.test(title) ? title : firstPrompt),
    cwd: typeof info.directory === 'string' ? clean(info.directory) : null,
    model: model ?? null,
    createdAt: created,
    updatedAt: isoTime(time.updated) ?? created,
    branches: kept && kept.length ? [kept, all] : [all],
  });
  return parsed;
}

/** What the user typed: text parts opencode did not add itself; attached files by name. */
function userText(parts: Part[]): string {
  return parts
    .map((p) => {
      if (p.type === 'text' && p.synthetic !== true && p.ignored !== true) return str(p.text) ?? '';
      if (p.type === 'file') return `[file: ${str(p.filename) ?? str(p.url) ?? 'attachment'}]`;
      return '';
    })
    .filter(Boolean)
    .join('\n');
}

function textOf(parts: Part[]): string {
  return parts
    .filter((p) => p.type === 'text')
    .map((p) => str(p.text) ?? '')
    .join('\n');
}

function timeOf(info: Record<string, unknown>): unknown {
  return isRecord(info.time) ? info.time.created : undefined;
}

/** The step's text and calls as one assistant message, each call's result right after it. */
function assistantItems(id: string, parts: Part[]): ImportedItem[] {
  const calls: ToolCall[] = [];
  const results: ImportedItem[] = [];
  for (const part of parts) {
    if (part.type !== 'tool' || typeof part.callID !== 'string') continue;
    const state = isRecord(part.state) ? part.state : {};
    calls.push(toolCall(part.callID, str(part.tool), state.input));
    const result = resultText(state);
    if (result !== undefined)
      results.push({ kind: 'message', key: `${id}:${part.callID}`, message: { role: 'tool', tool_call_id: part.callID, content: result } });
  }
  const message: ChatMessage = assistant(textOf(parts) || null, calls);
  return [{ kind: 'message', key: id, message }, ...results];
}

function resultText(state: Record<string, unknown>): string | undefined {
  if (state.status === 'completed') {
    const compacted = isRecord(state.time) && state.time.compacted !== undefined;
    return compacted ? '[Old tool result content cleared]' : (str(state.output) ?? '');
  }
  if (state.status === 'error') return `Error: ${str(state.error) ?? 'the tool failed'}`;
  return undefined; // pending or running when exported: closed as "no result" on import
}
