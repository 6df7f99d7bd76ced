/**
 * Gemini CLI's session recordings (docs/DESIGN.md#importing-from-other-agents):
 * ~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl, a sub-agent's in
 * chats/<parent session id>/<id>.jsonl. The first line is the metadata ({sessionId,
 * projectHash, startTime, kind…}); then message records ({id, timestamp, type, content…}, a
 * record again with the same id replacing the earlier one), `$set` lines updating the
 * metadata (with `messages`, the whole list anew) and `$rewindTo` lines dropping a message
 * and all after it. What a rewind or a new list dropped is a branch of its own beside the
 * one the session goes on with. Older versions wrote the whole record as one JSON document
 * (session-*.json). A reply's calls carry their results (`toolCalls[].result`); message ids
 * are the keys.
 */
import path from 'node:path';
import {
  MAX_ENTRY_DEPTH,
  assistant,
  emptyParse,
  isRecord,
  isoTime,
  nestedTooDeeply,
  noteNotUnderstood,
  readJsonDocument,
  str,
  timeSpan,
  titleFrom,
  toolCall,
  type ImportedItem,
  type ParsedFile,
  type SourceFacts,
} from './imported';
import { functionCalls, functionResults, isInjectedUserText, partsOf, partsText, WaitingCalls } from './gemini-parts';
import { readJsonLines } from './jsonl';

type Entry = Record<string, unknown>;

/** Gemini CLI's own notices in the UI, not conversation. */
const NOTICE_TYPES = new Set(['info', 'error', 'warning']);

interface Recording {
  meta: Entry;
  /** The messages now, in order, by id. */
  messages: Map<string, Entry>;
  /** The lists of messages a rewind or a new list left behind. */
  leftBehind: Entry[][];
}

export function parseGeminiRecording(text: string, file: string): ParsedFile {
  const parsed = emptyParse();
  const recording: Recording = { meta: {}, messages: new Map(), leftBehind: [] };
  if (file.endsWith('.json')) {
    const doc = readJsonDocument(text, file, 'a Gemini CLI session record', parsed);
    if (doc === undefined) return parsed;
    if (!isRecord(doc) || nestedTooDeeply(doc)) {
      parsed.refused.push(`${file}:1: not a Gemini CLI session record (an object nested at most ${MAX_ENTRY_DEPTH} levels), skipped`);
      return parsed;
    }
    apply(recording, doc, parsed);
  } else for (const { value } of readJsonLines(text, file, parsed)) apply(recording, value, parsed);

  const { meta } = recording;
  if (typeof meta.sessionId !== 'string') {
    parsed.refused.push(`${file}:1: no Gemini CLI session metadata ({"sessionId", "projectHash", …}), file skipped`);
    return parsed;
  }
  const context = { model: undefined as string | undefined, firstPrompt: undefined as string | undefined, times: [] as (string | undefined)[] };
  const current = itemsOf([...recording.messages.values()], context, parsed);
  const branches = [current, ...recording.leftBehind.map((messages) => itemsOf(messages, context, parsed))].filter((items) => items.length > 0);
  if (branches.length === 0) return parsed;
  const subAgent = meta.kind === 'subagent';
  const span = timeSpan([isoTime(meta.startTime), isoTime(meta.lastUpdated), ...context.times], new Date(0).toISOString());
  parsed.conversations.push({
    sourceId: meta.sessionId,
    // Nested under the parent's folder, named after the parent's full session id.
    ...(subAgent && { parentSourceId: path.basename(path.dirname(file)) }),
    title: titleFrom(str(meta.summary) ?? (subAgent ? `Sub-agent: ${context.firstPrompt ?? meta.sessionId}` : context.firstPrompt)),
    cwd: null,
    model: context.model ?? null,
    ...span,
    branches,
  });
  return parsed;
}

/** One record of the file, applied as Gemini CLI's own loader does (loadConversationRecord). */
function apply(recording: Recording, record: Entry, parsed: ParsedFile): void {
  const { messages } = recording;
  if (typeof record.$rewindTo === 'string') {
    leaveBehind(recording);
    const ids = [...messages.keys()];
    const at = ids.indexOf(record.$rewindTo);
    // A rewind to a message not there drops them all, as Gemini CLI does.
    for (const id of at < 0 ? ids : ids.slice(at)) messages.delete(id);
  } else if (isRecord(record.$set)) {
    const { messages: list, ...meta } = record.$set;
    Object.assign(recording.meta, meta);
    if (Array.isArray(list)) {
      leaveBehind(recording);
      messages.clear();
      for (const message of list) if (isRecord(message) && typeof message.id === 'string') messages.set(message.id, message);
    }
  } else if (typeof record.id === 'string') messages.set(record.id, record);
  else if (typeof record.sessionId === 'string') {
    const { messages: list, ...meta } = record;
    Object.assign(recording.meta, meta);
    // The older layout: the whole record in one document.
    if (Array.isArray(list)) for (const message of list) if (isRecord(message) && typeof message.id === 'string') messages.set(message.id, message);
  } else noteNotUnderstood(parsed, 'gemini-cli record without an id, $set or $rewindTo');
}

/** Keeps the messages as they are before a change drops some: the branch the user left. */
function leaveBehind(recording: Recording): void {
  if (recording.messages.size) recording.leftBehind.push([...recording.messages.values()]);
}

interface Context {
  model?: string;
  firstPrompt?: string;
  times: (string | undefined)[];
}

function itemsOf(messages: Entry[], context: Context, parsed: ParsedFile): ImportedItem[] {
  const items: ImportedItem[] = [];
  const waiting = new WaitingCalls();
  for (const message of messages) {
    const key = message.id as string;
    const at = isoTime(message.timestamp);
    context.times.push(at);
    const parts = partsOf(message.content);
    const type = str(message.type) ?? '';
    if (type === 'user') {
      for (const result of functionResults(parts, waiting))
        items.push({
          kind: 'message',
          key: `${key}:${result.callId}`,
          message: { role: 'tool', tool_call_id: result.callId, content: result.content },
          facts: at ? { at } : undefined,
        });
      const prompt = partsText(parts, parsed);
      if (isInjectedUserText(prompt)) continue;
      context.firstPrompt ??= prompt;
      items.push({ kind: 'message', key, message: { role: 'user', content: prompt }, facts: at ? { at } : undefined });
    } else if (type === 'gemini') items.push(...replyItems(message, key, parts, waiting, context, parsed));
    else if (!NOTICE_TYPES.has(type)) noteNotUnderstood(parsed, `gemini-cli message type ${JSON.stringify(type)}`);
  }
  return items;
}

/** A reply: its text, its calls (the toolCalls records, else the functionCall parts), then the results the records carry. */
function replyItems(message: Entry, key: string, parts: Entry[], waiting: WaitingCalls, context: Context, parsed: ParsedFile): ImportedItem[] {
  const records = (Array.isArray(message.toolCalls) ? (message.toolCalls as unknown[]) : []).filter(isRecord);
  const recorded = records.map((record, n) => ({ record, call: toolCall(str(record.id) || `${key}#${n}`, str(record.name), record.args ?? {}) }));
  const calls = recorded.length ? recorded.map(({ call }) => call) : functionCalls(parts, key);
  const model = str(message.model);
  if (model) context.model = model;
  const tokens = isRecord(message.tokens) ? message.tokens : {};
  const facts: SourceFacts = {
    ...(isoTime(message.timestamp) && { at: isoTime(message.timestamp) }),
    ...(model && { model }),
    ...(typeof tokens.input === 'number' && { prompt_tokens: tokens.input }),
    ...(typeof tokens.output === 'number' && { completion_tokens: tokens.output }),
  };
  const items: ImportedItem[] = [{ kind: 'message', key, message: assistant(partsText(parts, parsed) || null, calls), facts }];
  const answered: string[] = [];
  for (const { record, call } of recorded) {
    if (record.result === undefined || record.result === null) continue;
    const callId = call.id;
    const inline = new WaitingCalls();
    inline.open([call]);
    const results = functionResults(partsOf(record.result), inline);
    // A result of plain text (no functionResponse part) is the output itself.
    const content = results.length ? results.map((r) => r.content).join('\n') : partsText(partsOf(record.result), parsed);
    const at = isoTime(record.timestamp) ?? facts.at;
    items.push({ kind: 'message', key: `${key}:${callId}`, message: { role: 'tool', tool_call_id: callId, content }, facts: at ? { at } : undefined });
    answered.push(callId);
  }
  waiting.open(calls, answered);
  return items;
}
