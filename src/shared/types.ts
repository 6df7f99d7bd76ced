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
export type UserMessage = { role: 'user'; content: string };
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

export const TODO_STATUSES = ['pending', 'in_progress', 'done', 'cancelled', 'failed'] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

export interface TodoItem {
  id: number;
  text: string;
  status: TodoStatus;
  retries: number;
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
  cwd: string | null;
}

export interface SessionRecord extends SessionMeta {
  /** The working context sent to the model. */
  messages: ChatMessage[];
  /** Every message ever, in order; compaction never removes from it. */
  transcript: ChatMessage[];
  compactions: Compaction[];
  plan: PlanState;
  usage: SessionUsage;
}

/** Where a page of the session list ends: the last session's place in listing order (newest updated first, then id). */
export interface SessionCursor {
  updated_at: string;
  id: string;
}

/** One page of the session list and where the next one starts (null: this was the last). */
export interface SessionPage {
  sessions: SessionMeta[];
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
}
