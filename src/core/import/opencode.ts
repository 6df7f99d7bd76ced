/**
 * opencode: a session as {info, messages: [{info, parts}]}, the shape `opencode export <id>`
 * prints and the one its database and storage tree are read into (opencode-db.ts,
 * opencode-storage.ts; docs/DESIGN.md#importing-from-other-agents). One tool part holds a
 * call and its result; a user message with a compaction part and the summary assistant
 * message after it are a compaction; messages a revert undid are a branch of their own
 * beside the one the session goes on with. Message and part ids are the keys, whichever
 * carrier a session came in: the same session read from an export and from the database
 * is one session.
 */
import path from 'node:path';
import type { CallUsage, ChatMessage, ToolCall } from '../../shared/types';
import {
  MAX_ENTRY_DEPTH,
  assistant,
  clean,
  nestedTooDeeply,
  emptyParse,
  isRecord,
  isoTime,
  noteNotUnderstood,
  readJsonDocument,
  str,
  titleFrom,
  toolCall,
  type ImportedItem,
  type ParsedFile,
  type SourceFacts,
} from './imported';

const KNOWN_PARTS = new Set(['text', 'reasoning', 'tool', 'step-start', 'step-finish', 'patch', 'snapshot', 'retry', 'file', 'compaction', 'subtask', 'agent']);
/** opencode's placeholder titles: the session has no real one yet. */
const PLACEHOLDER_TITLE = /^(New session|Child session) - /;

type Part = Record<string, unknown>;

export function parseOpencode(text: string, file: string): ParsedFile {
  const parsed = emptyParse();
  const doc = readJsonDocument(text, file, 'what `opencode export` prints', parsed);
  if (doc === undefined) return parsed;
  if (!isRecord(doc) || !isRecord(doc.info) || !Array.isArray(doc.messages)) {
    parsed.refused.push(`${file}:1: not an opencode export ({"info": …, "messages": […]}), skipped`);
    return parsed;
  }
  readOpencodeSession({ info: doc.info, messages: doc.messages as unknown[] }, file, parsed);
  return parsed;
}

/** One session: its Session.Info and its messages, each {info, parts}, in order. */
export interface OpencodeSession {
  info: Record<string, unknown>;
  messages: unknown[];
}

/** Adds the session's conversation to `parsed`; `file` names it in refusals (and, with no id, gives it one). */
export function readOpencodeSession({ info, messages }: OpencodeSession, file: string, parsed: ParsedFile): void {
  const revertedFrom = isRecord(info.revert) ? str(info.revert.messageID) : undefined;
  const all: ImportedItem[] = [];
  let kept: ImportedItem[] | undefined;
  let model: string | undefined;
  let firstPrompt: string | undefined;
  let compacting = false;
  const usage: CallUsage = { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 };
  for (const [index, raw] of messages.entries()) {
    if (!isRecord(raw) || !isRecord(raw.info)) continue;
    if (nestedTooDeeply(raw)) {
      parsed.refused.push(`${file}: message ${index + 1} nested deeper than ${MAX_ENTRY_DEPTH} levels, skipped`);
      continue;
    }
    const id = str(raw.info.id) ?? `m${all.length}`;
    if (id === revertedFrom) kept = [...all];
    const at = isoTime(timeOf(raw.info));
    const facts: SourceFacts | undefined = at === undefined ? undefined : { at };
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
      const tokens = addUsage(usage, raw.info);
      if (compacting || raw.info.summary === true) {
        all.push({ kind: 'compaction', key: id, summary: textOf(parts), at: at ?? new Date(0).toISOString(), beforeTokens: 0 });
        compacting = false;
        continue;
      }
      all.push(...assistantItems(id, parts, facts, { ...facts, ...(model && { model }), ...tokens }));
    } else noteNotUnderstood(parsed, `opencode message role ${JSON.stringify(raw.info.role)}`);
  }
  if (all.length === 0) return;
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
    ...(usage.prompt_tokens || usage.completion_tokens || usage.cost_usd ? { usage } : {}),
    branches: kept && kept.length ? [kept, all] : [all],
  });
}

/**
 * Adds an assistant message's tokens (cached ones are prompt tokens, reasoning ones reply
 * tokens) and cost to the conversation's; returns its tokens, when it counted any, for its facts.
 */
function addUsage(usage: CallUsage, info: Record<string, unknown>): SourceFacts {
  const tokens = isRecord(info.tokens) ? info.tokens : {};
  const cache = isRecord(tokens.cache) ? tokens.cache : {};
  const prompt = count(tokens.input) + count(cache.read) + count(cache.write);
  const completion = count(tokens.output) + count(tokens.reasoning);
  usage.prompt_tokens += prompt;
  usage.completion_tokens += completion;
  usage.cost_usd += typeof info.cost === 'number' && Number.isFinite(info.cost) && info.cost > 0 ? info.cost : 0;
  return prompt || completion ? { prompt_tokens: prompt, completion_tokens: completion } : {};
}

/** A token count the source wrote, or 0 for anything that is not one. */
function count(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0;
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

/** The step's text and calls as one assistant message (with the reply's facts), each call's result right after it (with its time). */
function assistantItems(id: string, parts: Part[], resultFacts: SourceFacts | undefined, replyFacts: SourceFacts): ImportedItem[] {
  const calls: ToolCall[] = [];
  const results: ImportedItem[] = [];
  for (const part of parts) {
    if (part.type !== 'tool' || typeof part.callID !== 'string') continue;
    const state = isRecord(part.state) ? part.state : {};
    calls.push(toolCall(part.callID, str(part.tool), state.input));
    const result = resultText(state);
    if (result !== undefined)
      results.push({ kind: 'message', key: `${id}:${part.callID}`, message: { role: 'tool', tool_call_id: part.callID, content: result }, facts: resultFacts });
  }
  const message: ChatMessage = assistant(textOf(parts) || null, calls);
  return [{ kind: 'message', key: id, message, facts: replyFacts }, ...results];
}

function resultText(state: Record<string, unknown>): string | undefined {
  if (state.status === 'completed') {
    const compacted = isRecord(state.time) && state.time.compacted !== undefined;
    return compacted ? '[Old tool result content cleared]' : (str(state.output) ?? '');
  }
  if (state.status === 'error') return `Error: ${str(state.error) ?? 'the tool failed'}`;
  return undefined; // pending or running when exported: closed as "no result" on import
}
