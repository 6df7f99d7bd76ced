/**
 * goose: a session's messages, wherever they were kept (docs/DESIGN.md#importing-from-other-agents):
 * rows of `sessions.db` (goose-db.ts), the lines of a legacy `<id>.jsonl`, or the
 * `conversation` of `goose session export --format json` (goose-files.ts). A Message is
 * {role, created (seconds), content: [items], metadata: {userVisible, agentVisible}};
 * items are tagged by `type` (camelCase), or untagged before goose 1.0. A tool call is a
 * `toolRequest` of an assistant message, its result a `toolResponse` of the next user
 * message, paired by id. A compaction leaves no marker: the messages before it become
 * invisible to the agent, and a summary only the agent sees follows them.
 *
 * Keys are a message's position, time and a hash of its content, the same in every
 * carrier: goose rewrites a conversation it compacts (new row ids, changed visibility),
 * and copied its legacy files into its database.
 */
import { createHash } from 'node:crypto';
import type { CallUsage, ChatMessage, ToolCall } from '../../shared/types';
import {
  assistant,
  blockText,
  clean,
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

/** Content items that are goose's own display or bookkeeping, not conversation. */
const SKIPPED_ITEMS = new Set([
  'thinking',
  'redactedThinking',
  'reasoning',
  'actionRequired',
  'toolConfirmationRequest',
  'systemNotification',
  'conversationCompacted',
  'summarizationRequested',
  'contextLengthExceeded',
]);

export interface GooseSession {
  id: string;
  name: string | null;
  workingDir: string | null;
  createdAt?: string;
  updatedAt?: string;
  usage?: CallUsage;
  /** The messages in order, each with where a refusal names it. */
  messages: { value: Record<string, unknown>; where: string }[];
}

export function readGooseSession(session: GooseSession, parsed: ParsedFile): void {
  const items: ImportedItem[] = [];
  let firstPrompt: string | undefined;
  let hiddenFromAgent = false;
  for (const [index, { value, where }] of session.messages.entries()) {
    const content = Array.isArray(value.content) ? (value.content as unknown[]) : undefined;
    if (!content || (value.role !== 'user' && value.role !== 'assistant')) {
      parsed.refused.push(`${where}: not a goose message ({"role", "content": […]}), skipped`);
      continue;
    }
    const key = messageKey(index, value);
    const at = typeof value.created === 'number' ? isoTime(value.created * 1000) : undefined;
    const metadata = isRecord(value.metadata) ? value.metadata : {};
    if (metadata.userVisible === false) {
      // Only the agent saw it: the summary of a compaction right after history it stopped seeing, else a nudge.
      if (hiddenFromAgent && metadata.agentVisible !== false) {
        items.push({ kind: 'compaction', key, summary: textOf(content, parsed), at: at ?? new Date(0).toISOString(), beforeTokens: 0 });
        hiddenFromAgent = false;
      }
      continue;
    }
    if (metadata.agentVisible === false) hiddenFromAgent = true;
    const facts: SourceFacts | undefined = at === undefined ? undefined : { at };
    if (value.role === 'assistant') {
      const calls = content.filter(isRecord).flatMap(callOf);
      const text = textOf(content, parsed);
      items.push({ kind: 'message', key, message: assistant(text || null, calls), facts });
      continue;
    }
    const results = content.filter(isRecord).flatMap(resultOf);
    results.forEach((message, i) => items.push({ kind: 'message', key: `${key}:${i}`, message, facts }));
    const text = textOf(content, parsed);
    if (text.trim()) {
      firstPrompt ??= text;
      items.push({ kind: 'message', key, message: { role: 'user', content: text }, facts });
    }
  }
  if (items.length === 0) return;
  const times = session.messages.map(({ value }) => (typeof value.created === 'number' ? isoTime(value.created * 1000) : undefined));
  const span = timeSpan(times, new Date(0).toISOString());
  parsed.conversations.push({
    sourceId: session.id,
    title: titleFrom(session.name || firstPrompt),
    cwd: session.workingDir === null ? null : clean(session.workingDir),
    model: null,
    createdAt: session.createdAt ?? span.createdAt,
    updatedAt: session.updatedAt ?? span.updatedAt,
    ...(session.usage ? { usage: session.usage } : {}),
    branches: [items],
  });
}

function messageKey(index: number, value: Record<string, unknown>): string {
  const content = createHash('sha256')
    .update(JSON.stringify([value.role, value.content]))
    .digest('hex')
    .slice(0, 16);
  return `${index}:${typeof value.created === 'number' ? value.created : ''}:${content}`;
}

/** The words of a message: its text items (tagged or not); images named; other items skipped, unknown ones counted. */
function textOf(content: unknown[], parsed: ParsedFile): string {
  const words: string[] = [];
  for (const item of content) {
    if (!isRecord(item)) continue;
    const type = str(item.type);
    if (type === 'text' || (type === undefined && typeof item.text === 'string')) words.push(str(item.text) ?? '');
    else if (type === 'image') words.push('[image]');
    else if (type === undefined ? !isUntaggedTool(item) : !isToolItem(type) && !SKIPPED_ITEMS.has(type))
      noteNotUnderstood(parsed, `goose content type ${JSON.stringify(item.type ?? Object.keys(item).sort().join('+'))}`);
  }
  return words.join('\n');
}

function isToolItem(type: string): boolean {
  return type === 'toolRequest' || type === 'frontendToolRequest' || type === 'toolResponse';
}

/** Before goose 1.0: {tool_name, arguments} was a call, {id, tool_result} its result. */
function isUntaggedTool(item: Record<string, unknown>): boolean {
  return 'tool_name' in item || 'tool_result' in item;
}

function callOf(item: Record<string, unknown>): ToolCall[] {
  const id = str(item.id) ?? '';
  if (item.type === 'toolRequest' || item.type === 'frontendToolRequest') {
    const call = isRecord(item.toolCall) ? item.toolCall : {};
    const value = call.status === 'success' && isRecord(call.value) ? call.value : {};
    return [toolCall(id, str(value.name), value.arguments)];
  }
  if (item.type === undefined && typeof item.tool_name === 'string') return [toolCall(id, item.tool_name, item.arguments)];
  return [];
}

function resultOf(item: Record<string, unknown>): ChatMessage[] {
  const id = str(item.id);
  if (id === undefined) return [];
  if (item.type === 'toolResponse') return [{ role: 'tool', tool_call_id: id, content: resultText(item.toolResult) }];
  if (item.type === undefined && 'tool_result' in item) return [{ role: 'tool', tool_call_id: id, content: resultText(item.tool_result) }];
  return [];
}

/** A ToolResult: {status: "success", value: CallToolResult or its content list} or {status: "error", error}. */
function resultText(result: unknown): string {
  if (!isRecord(result)) return blockText(result);
  if (result.status === 'error') return `Error: ${str(result.error) ?? 'the tool failed'}`;
  const value = 'status' in result ? result.value : result;
  if (isRecord(value)) {
    const text = blockText(value.content);
    return value.isError === true ? `Error: ${text}` : text;
  }
  return blockText(value);
}

/** Tokens as goose counts them for the session: the accumulated totals, else the last call's. */
export function gooseUsage(counts: Record<string, unknown>): CallUsage | undefined {
  const pick = (...names: string[]) =>
    names.map((name) => counts[name]).find((n): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n > 0) ?? 0;
  const usage = {
    prompt_tokens: pick('accumulated_input_tokens', 'input_tokens'),
    completion_tokens: pick('accumulated_output_tokens', 'output_tokens'),
    cost_usd: 0,
  };
  return usage.prompt_tokens || usage.completion_tokens ? usage : undefined;
}
