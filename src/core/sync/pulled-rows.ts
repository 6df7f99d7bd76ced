/**
 * The checks a row pulled from the hub passes before it reaches the store
 * (docs/SECURITY.md §14): the hub holds what any teammate wrote into a shared session, so
 * each row is read like an import — every column of the type and range Loom writes, every
 * JSON column parsed into the shape Loom reads back, images only as data URLs of an
 * allowed type (security/image-data.ts). Each check gives what is wrong in a few words, or
 * null; apply.ts skips a row that has a problem and the sync names it.
 */
import { IMAGE_TYPE_NAMES } from '../../shared/attachments';
import { CALL_KINDS, CHILD_STATES, SESSION_STATUSES, TODO_STATUSES } from '../../shared/types';
import { AGENT_NAME } from '../agents/agent-name';
import { imageDataProblem } from '../security/image-data';
import { SESSION_ID_PATTERN } from '../store/session-id';
import type { HubBody, SessionState } from './hub-rows';

type Problem = string | null;

/** Lengths beyond anything Loom writes, so a row cannot make the store hold or a window show without end. */
const MAX_MESSAGE_CHARS = 16_000_000;
const MAX_FIELD_CHARS = 100_000;
const MAX_NAME_CHARS = 4096;
const MAX_TOOL_CALLS = 1000;
const MAX_IMAGES = 64;
const MAX_USAGE_ROWS = CALL_KINDS.length;

const ROLES = ['system', 'user', 'assistant', 'tool'] as const;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isAmount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;
const isText = (value: unknown, max: number): value is string => typeof value === 'string' && value.length <= max;
const isTextOrNull = (value: unknown, max: number) => value === null || isText(value, max);
const isTime = (value: unknown) => isText(value, 64) && !Number.isNaN(Date.parse(value));
const hasKeys = (value: Record<string, unknown>, keys: readonly string[]) => Object.keys(value).length === keys.length && keys.every((key) => key in value);
/** Shown in a line: short, quoted, escaped (it is a teammate's text). */
const shown = (value: unknown) => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
};

function parsedJson(text: string): { value: unknown } | null {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return null;
  }
}

const isAgentName = (value: unknown) => typeof value === 'string' && AGENT_NAME.test(value);

/** A session row that is not a tombstone: its state has every field, of its type. */
export function sessionStateProblem(id: string, state: unknown): Problem {
  if (!isRecord(state)) return 'its state is not an object';
  const s = state as Partial<Record<keyof SessionState, unknown>>;
  if (!SESSION_STATUSES.some((status) => status === s.status)) return `its status ${shown(s.status)} is not one Loom knows`;
  if (!isTime(s.created_at) || !isTime(s.updated_at)) return 'its creation or update time is not a time';
  for (const field of ['parent_id', 'fork_parent_id', 'model'] as const) {
    if (!isTextOrNull(s[field], MAX_NAME_CHARS)) return `its ${field} is not a text`;
  }
  if (!isTextOrNull(s.summary, MAX_FIELD_CHARS) || !isTextOrNull(s.note, MAX_FIELD_CHARS)) return 'its summary or note is not a text';
  if (!(s.cwd === null || (isText(s.cwd, MAX_NAME_CHARS) && /^\P{Cc}*$/u.test(s.cwd)))) return 'its folder is not a plain text';
  if (!isCount(s.fork_at)) return 'its fork point is not a count';
  // Absent in a state an older Loom pushed: the session keeps its own (apply.ts).
  if (!(s.agent === undefined || s.agent === null || isAgentName(s.agent))) return `its agent ${shown(s.agent)} is not an agent name`;
  return childLinkProblem(id, s) ?? planProblem(s.plan) ?? usageProblem(s.usage);
}

/** A sub-agent's link: none at all, or a parent that is another session, a call id, an agent name and a known state. */
function childLinkProblem(id: string, s: Partial<Record<keyof SessionState, unknown>>): Problem {
  const link = [s.spawned_by, s.spawn_call_id, s.spawn_agent, s.child_state];
  if (link.every((value) => value === undefined || value === null)) return null;
  if (!(typeof s.spawned_by === 'string' && SESSION_ID_PATTERN.test(s.spawned_by))) return `its sub-agent parent ${shown(s.spawned_by)} is not a session id`;
  if (s.spawned_by.toLowerCase() === id.toLowerCase()) return 'it is its own sub-agent parent';
  if (!(isText(s.spawn_call_id, MAX_NAME_CHARS) && s.spawn_call_id !== '')) return 'its sub-agent call id is not a text';
  if (!isAgentName(s.spawn_agent)) return `its sub-agent's agent ${shown(s.spawn_agent)} is not an agent name`;
  if (!CHILD_STATES.some((state) => state === s.child_state)) return `its sub-agent state ${shown(s.child_state)} is not one Loom knows`;
  return null;
}

function planProblem(plan: unknown): Problem {
  const parsed = isText(plan, MAX_MESSAGE_CHARS) ? parsedJson(plan) : null;
  const value = parsed?.value;
  if (!isRecord(value) || !hasKeys(value, ['todos', 'scratchpad']) || !Array.isArray(value.todos) || typeof value.scratchpad !== 'string') {
    return 'its plan is not a plan Loom reads';
  }
  const goodTodo = (todo: unknown) =>
    isRecord(todo) &&
    hasKeys(todo, ['id', 'text', 'status', 'retries']) &&
    Number.isSafeInteger(todo.id) &&
    typeof todo.text === 'string' &&
    TODO_STATUSES.some((status) => status === todo.status) &&
    isCount(todo.retries);
  return value.todos.every(goodTodo) ? null : 'its plan has a to-do Loom cannot read';
}

function usageProblem(usage: unknown): Problem {
  const goodRow = (row: unknown) =>
    isRecord(row) &&
    CALL_KINDS.some((kind) => kind === row.kind) &&
    isCount(row.calls) &&
    isCount(row.prompt_tokens) &&
    isCount(row.completion_tokens) &&
    isAmount(row.cost_usd);
  if (!Array.isArray(usage) || usage.length > MAX_USAGE_ROWS || !usage.every(goodRow)) return 'its usage is not usage Loom reads';
  return new Set(usage.map((row: { kind: string }) => row.kind)).size === usage.length ? null : 'its usage names a kind twice';
}

/** A transcript message as the hub holds it: the columns Loom's messages table has, each as Loom writes it. */
export function bodyProblem(body: unknown): Problem {
  if (!isRecord(body)) return 'it is not a message';
  const b = body as Partial<Record<keyof HubBody, unknown>>;
  const role = ROLES.find((r) => r === b.role);
  if (!role) return `its role ${shown(b.role)} is not one Loom knows`;
  if (!(role === 'assistant' ? isTextOrNull(b.content, MAX_MESSAGE_CHARS) : isText(b.content, MAX_MESSAGE_CHARS))) {
    return 'its content is not a text';
  }
  if (!(b.stopped === 0 || b.stopped === 1) || (b.stopped === 1 && role !== 'assistant')) return 'its stopped mark is not 0 or 1 on a reply';
  if (role === 'tool' ? !isText(b.tool_call_id, MAX_NAME_CHARS) || b.tool_call_id === '' : b.tool_call_id !== null) {
    return 'its tool call id does not fit its role';
  }
  if (!isTextOrNull(b.tool_text, MAX_MESSAGE_CHARS)) return 'its tool text is not a text';
  return (
    toolCallsProblem(b.tool_calls, role) ??
    (role === 'assistant' && b.content === null && b.tool_calls === null ? 'it is a reply with neither text nor tool calls' : null) ??
    imagesProblem(b.images, role) ??
    factsProblem(b.facts)
  );
}

function toolCallsProblem(column: unknown, role: (typeof ROLES)[number]): Problem {
  if (column === null) return null;
  if (role !== 'assistant') return 'it has tool calls but is not a reply';
  const calls = isText(column, MAX_MESSAGE_CHARS) ? parsedJson(column)?.value : undefined;
  const goodCall = (call: unknown) =>
    isRecord(call) &&
    hasKeys(call, ['id', 'type', 'function']) &&
    isText(call.id, MAX_NAME_CHARS) &&
    call.type === 'function' &&
    isRecord(call.function) &&
    hasKeys(call.function, ['name', 'arguments']) &&
    isText(call.function.name, MAX_NAME_CHARS) &&
    typeof call.function.arguments === 'string';
  if (!Array.isArray(calls) || calls.length === 0 || calls.length > MAX_TOOL_CALLS || !calls.every(goodCall)) {
    return 'its tool calls are not a list of calls Loom reads';
  }
  const ids = calls.map((call: { id: string }) => call.id);
  return new Set(ids).size === ids.length ? null : 'it makes two tool calls with one id';
}

function imagesProblem(column: unknown, role: (typeof ROLES)[number]): Problem {
  if (column === null) return null;
  if (role !== 'user') return 'it has images but is not a user message';
  const images = isText(column, MAX_IMAGES * MAX_MESSAGE_CHARS) ? parsedJson(column)?.value : undefined;
  if (!Array.isArray(images) || images.length === 0 || images.length > MAX_IMAGES) return 'its images are not a list of images';
  for (const image of images) {
    const problem = typeof image === 'string' ? imageDataProblem(image) : `it is not a base64 data URL of a ${IMAGE_TYPE_NAMES} image`;
    if (problem) return `an image is refused: ${problem}`;
  }
  return null;
}

/** A message's facts (MessageFacts): the fields Loom reads typed; others, from a newer Loom, are left unread. */
function factsProblem(column: unknown): Problem {
  if (column === null) return null;
  const facts = isText(column, MAX_FIELD_CHARS) ? parsedJson(column)?.value : undefined;
  const good =
    isRecord(facts) &&
    isTime(facts.at) &&
    (facts.model === undefined || isText(facts.model, 200)) &&
    ['prompt_tokens', 'completion_tokens'].every((key) => facts[key] === undefined || isCount(facts[key])) &&
    ['cost_usd', 'latency_ms', 'tokens_per_second'].every((key) => facts[key] === undefined || isAmount(facts[key])) &&
    (facts.estimated === undefined || typeof facts.estimated === 'boolean');
  return good ? null : 'its facts are not facts Loom reads';
}

/** A record's columns (apply.ts's RECORD_COLUMNS), each of the type its table takes. */
export function recordProblem(kind: string, body: unknown): Problem {
  if (!isRecord(body)) return 'it is not a record';
  const countOrNull = (value: unknown) => value === null || value === undefined || isCount(value);
  switch (kind) {
    case 'compaction':
      return isTime(body.at) &&
        isCount(body.before_tokens) &&
        isCount(body.after_tokens) &&
        isText(body.summary, MAX_MESSAGE_CHARS) &&
        countOrNull(body.transcript_index)
        ? null
        : 'it is not a compaction Loom reads';
    case 'model_change':
      return isTime(body.at) &&
        isTextOrNull(body.from_model ?? null, 200) &&
        isText(body.to_model, 200) &&
        body.to_model !== '' &&
        isCount(body.transcript_index)
        ? null
        : 'it is not a model change Loom reads';
    case 'agent_change':
      return isTime(body.at) &&
        (body.from_agent === null || body.from_agent === undefined || isAgentName(body.from_agent)) &&
        isAgentName(body.to_agent) &&
        isCount(body.transcript_index)
        ? null
        : 'it is not an agent change Loom reads';
    case 'context_start':
      return isCount(body.at_seq) && isCount(body.kept_from) && (body.with_system === 0 || body.with_system === 1) && countOrNull(body.prompt_seq)
        ? headProblem(body.head)
        : 'it is not a context start Loom reads';
    default:
      return `its kind ${shown(kind)} is not one Loom knows`;
  }
}

/** A context start's head: the messages Loom put before the kept suffix, as a JSON list of chat messages. */
function headProblem(head: unknown): Problem {
  const messages = isText(head, MAX_MESSAGE_CHARS) ? parsedJson(head)?.value : undefined;
  if (!Array.isArray(messages)) return 'its head is not a list of messages';
  for (const message of messages) {
    const problem = chatMessageProblem(message);
    if (problem) return `its head has a message that ${problem}`;
  }
  return null;
}

/** A message in the chat format (what a head holds): its images checked as a user message's are. */
function chatMessageProblem(message: unknown): Problem {
  if (!isRecord(message)) return 'is not a message';
  switch (message.role) {
    case 'system':
      return isText(message.content, MAX_MESSAGE_CHARS) ? null : 'has no text';
    case 'tool':
      return isText(message.content, MAX_MESSAGE_CHARS) && isText(message.tool_call_id, MAX_NAME_CHARS) ? null : 'is not a tool result';
    case 'assistant':
      if (!isTextOrNull(message.content, MAX_MESSAGE_CHARS)) return 'has no text';
      return message.tool_calls === undefined ? null : toolCallsProblem(JSON.stringify(message.tool_calls), 'assistant');
    case 'user':
      if (isText(message.content, MAX_MESSAGE_CHARS)) return null;
      return Array.isArray(message.content) ? userPartsProblem(message.content) : 'has no text';
    default:
      return `has the role ${shown(message.role)}`;
  }
}

function userPartsProblem(parts: unknown[]): Problem {
  if (parts.length === 0 || parts.length > MAX_IMAGES + 1) return 'has no parts Loom reads';
  for (const part of parts) {
    if (isRecord(part) && part.type === 'text' && isText(part.text, MAX_MESSAGE_CHARS)) continue;
    const url = isRecord(part) && part.type === 'image_url' && isRecord(part.image_url) ? part.image_url.url : undefined;
    const problem = typeof url === 'string' ? imageDataProblem(url) : 'is not a text or an image';
    if (problem) return `has an image refused: ${problem}`;
  }
  return null;
}
