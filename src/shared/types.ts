/**
 * Core data types shared by every engine module. Messages use the OpenAI chat format
 * so the working context can be sent to any OpenAI-compatible server unchanged.
 */

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type SystemMessage = { role: 'system'; content: string };
/** OpenAI-style content parts of a user message that carries images (docs/DESIGN.md#attachments). */
export type TextPart = { type: 'text'; text: string };
export type ImagePart = { type: 'image_url'; image_url: { url: string } };
export type UserContentPart = TextPart | ImagePart;
/** `content` is a string, or parts when the message carries images: its text first, then the images. */
export type UserMessage = { role: 'user'; content: string | UserContentPart[] };
export type AssistantMessage = {
  role: 'assistant';
  content: string | null;
  tool_calls?: ToolCall[];
  /** The user stopped this reply: it holds what had streamed. Loom's mark, never sent to a server. */
  stopped?: true;
};
export type ToolMessage = { role: 'tool'; tool_call_id: string; content: string };
export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** Kinds of model call whose usage is tracked separately. */
export const CALL_KINDS = ['chat', 'compaction', 'summary'] as const;
export type CallKind = (typeof CALL_KINDS)[number];

export interface UsageTotals {
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
}

export interface SessionUsage extends UsageTotals {
  by_kind: Record<CallKind, UsageTotals>;
}

/** One model call's usage, as recorded against a session. */
export interface CallUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
}

export interface Compaction {
  at: string;
  before_tokens: number;
  after_tokens: number;
  summary: string;
  /** The transcript length when it was recorded (the marker goes before that message); absent when unknown. */
  transcript_index?: number;
}

/** A compaction as the view of what it kept and dropped shows it; the fields are null for records older than them. */
export interface CompactionDetail extends Compaction {
  id: number;
  /** The transcript range it summarised: messages [summarised_from, kept_from). */
  summarised_from: number | null;
  kept_from: number | null;
  /** Summariser requests it took. */
  steps: number | null;
  /** The carried message it put after the boundary (pins, plan, files), if any. */
  carried: string | null;
  /** When the user undid it; the record stays. */
  undone_at: string | null;
  /** Whether it is the one undo would take back now. */
  undoable: boolean;
}

/**
 * What Loom knows about one transcript message beside its content (docs/DESIGN.md#per-message-facts):
 * when it was appended and, for a model's reply, the request that produced it. Messages
 * stored before Loom recorded facts have none.
 */
export interface MessageFacts {
  /** When the message was appended (ISO time). */
  at: string;
  /** The reply's model. */
  model?: string;
  prompt_tokens?: number;
  completion_tokens?: number;
  cost_usd?: number;
  /** From sending the request to the first token of the reply. */
  latency_ms?: number;
  /** Reply tokens per second, from the first token to the last; absent when too quick to measure. */
  tokens_per_second?: number;
  /** True when the token counts are Loom's estimate (the server reported no usage). */
  estimated?: boolean;
}

/** A session's model changed (docs/DESIGN.md#session-model): when, from what, to what, and where in the transcript. */
export interface ModelChange {
  at: string;
  /** Null when the session had no model recorded. */
  from: string | null;
  to: string;
  /** The transcript length at the change: it applies from the message at that index on. */
  transcript_index: number;
}

/** A session's agent changed (docs/DESIGN.md#the-sessions-agent), recorded as model changes are. */
export interface AgentChange {
  at: string;
  /** Null for the default agent, `build`, never chosen. */
  from: string | null;
  to: string;
  /** The transcript length at the change: it applies from the message at that index on. */
  transcript_index: number;
}

/** What can stop Loom from using a model server, as the connection test names it. */
export type ConnectionProblem = 'unreachable' | 'refused' | 'timeout' | 'http' | 'bad_response' | 'missing_model';

/** The settings dialog's connection test (docs/DESIGN.md#model-picker): one sentence, and the server's models when it listed them. */
export interface ConnectionReport {
  ok: boolean;
  /** What is wrong, when something is. */
  problem?: ConnectionProblem;
  message: string;
  models: string[];
}

export const TODO_STATUSES = ['pending', 'in_progress', 'done', 'cancelled', 'failed'] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

export interface TodoItem {
  id: number;
  text: string;
  status: TodoStatus;
  retries: number;
}

/** Something the user pinned in a session: a transcript message, or a note (seq null). */
export interface Pin {
  id: number;
  /** The pinned message's transcript position; null for a note. */
  seq: number | null;
  at: string;
  /** The pinned message's role; null for a note. */
  role: ChatMessage['role'] | null;
  /** The message's text, or the note. */
  text: string;
}

export interface PlanState {
  todos: TodoItem[];
  scratchpad: string;
}

export const SESSION_STATUSES = ['active', 'saved', 'interrupted'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** What a session list shows: everything but the message bodies. */
export interface SessionMeta {
  id: string;
  parent_id: string | null;
  title: string | null;
  summary: string | null;
  status: SessionStatus;
  archived: boolean;
  created_at: string;
  updated_at: string;
  /** Number of messages in the transcript. */
  message_count: number;
  model: string | null;
  /** The folder the session was recorded in (an import's or another agent's say; information only). */
  cwd: string | null;
  /**
   * The project folder the user chose for the session on this device, where its tools work
   * (docs/DESIGN.md#the-project-folder); null until one is chosen (an import, a pulled session).
   */
  project_dir: string | null;
  /** Kept on top of the sidebar (docs/DESIGN.md#the-sidebar); this device's, never synced. */
  pinned: boolean;
  /** The session's agent (docs/DESIGN.md#the-sessions-agent); null: the default, `build`. */
  agent: string | null;
}

/** Where a sub-agent's run stands (docs/DESIGN.md#sub-agents): running until its final answer (done), a failure, a stop or a crash. */
export const CHILD_STATES = ['running', 'done', 'failed', 'stopped', 'interrupted'] as const;
export type ChildState = (typeof CHILD_STATES)[number];

/** What links a sub-agent's session to the session and the run_subagent call that started it. */
export interface ChildLink {
  parent_id: string;
  call_id: string;
  agent: string;
  state: ChildState;
}

/** A sub-agent's session as its parent lists it: its metadata and its link. */
export interface ChildSession extends SessionMeta {
  child: ChildLink;
}

/** A sub-agent as its parent's card and sidebar row show it (sessions.children): its session and link, the tools it used, its usage. */
export interface SubagentRun extends ChildSession {
  /** The tools its calls named, each once, in the order first used. */
  tools: string[];
  usage: UsageTotals;
}

/** A session in the Trash (docs/DESIGN.md#trash): when it was deleted and when it will be purged. */
export interface TrashedSession extends SessionMeta {
  deleted_at: string;
  purge_at: string;
}

export interface SessionRecord extends SessionMeta {
  /** The working context sent to the model. */
  messages: ChatMessage[];
  /** Every message ever, in order; compaction never removes from it. */
  transcript: ChatMessage[];
  compactions: Compaction[];
  plan: PlanState;
  usage: SessionUsage;
  /** Aligned with `transcript`: each message's facts, null where none were recorded. */
  transcript_facts: (MessageFacts | null)[];
  model_changes: ModelChange[];
  agent_changes: AgentChange[];
}

/** Where a page of the session list ends: the last session's place in listing order (newest updated first, then id). */
export interface SessionCursor {
  updated_at: string;
  id: string;
}

/** One page of the session list and where the next one starts (null: this was the last). */
export interface SessionPage {
  sessions: SessionMeta[];
  /** How many sub-agents each listed session has, for those that have any (children are listed under their parent). */
  children: Record<string, number>;
  /**
   * Each listed session's family (docs/DESIGN.md#the-sidebar): the id of the conversation
   * it branched from, transitively; its own id for one that never branched. A page holds
   * whole families, and `next` is the place of its last family's newest member.
   */
  families: Record<string, string>;
  next: SessionCursor | null;
}

export interface SearchHit extends SessionMeta {
  snippet: string;
  /** Transcript index of the best-matching message; null when only the title or summary matched. */
  message_index: number | null;
}

/** A place where branches of a conversation part (docs/DESIGN.md#branches-in-the-ui). */
export interface BranchPoint {
  /** Transcript index of the first message that differs between the branches. */
  at: number;
  /** The branches with a message at `at`, oldest first. */
  branches: SessionMeta[];
  /** Index in `branches` of the one the asking session follows. */
  current: number;
}

/** The sessions related to one by forking: its parent, the parent's other forks, its own forks. */
export interface SessionFamily {
  /** Null when the session is not a fork or its parent was deleted. */
  parent: SessionMeta | null;
  siblings: SessionMeta[];
  children: SessionMeta[];
  /**
   * The whole family from its root (the oldest live ancestor by parent_id), oldest first:
   * every live descendant of it, and it, this session included; a tree by parent_id. Whose
   * parent is not among them is a root (several when the root's parent was deleted).
   */
  members: SessionMeta[];
}
