/**
 * Events the engine (src/core/engine.ts) sends to whatever front end drives it: the REPL,
 * the Electron renderer, the browser mode. Plain data, so they cross IPC and SSE unchanged.
 */
import type { ApprovalPreview, GrantOffer, SessionGrant, ToolEffect } from './approvals';
import type { ModelFailure, ModelRetry } from './model-failure';
import type { ChatMessage, ChildState, MessageFacts, SessionMeta, SessionUsage } from './types';

/**
 * A message's position in its session's transcript, as the store numbers it (the
 * transcript table's `seq`): 0 is the first message (the system prompt), and a position,
 * once given, always holds the same message — the transcript only grows, compaction never
 * removes from it, and a fork shares its parent's positions up to its fork point. So
 * anything keyed by it can be written twice, or late, without changing.
 */
export type TranscriptSeq = number;

export type EngineEvent =
  /**
   * A piece of the assistant reply being streamed; `at` is where it starts in the reply, so
   * a window that fetched the reply so far (reloaded) adds only the pieces it lacks.
   */
  | { type: 'text'; sessionId: string; delta: string; at: number }
  /**
   * A message committed to the store (user, assistant, tool result) at transcript position
   * `seq`, with the facts recorded with it.
   */
  | { type: 'message'; sessionId: string; seq: TranscriptSeq; message: ChatMessage; facts: MessageFacts }
  /**
   * A tool call starts (ends); `seq` is where its result message goes (went) in the transcript.
   * `effect`: what the tool declares it does (null: no tool of that name), so a window needs no list of tools.
   */
  | { type: 'tool_start'; sessionId: string; seq: TranscriptSeq; callId: string; name: string; effect: ToolEffect | null; args: string }
  | { type: 'tool_end'; sessionId: string; seq: TranscriptSeq; callId: string; name: string; effect: ToolEffect | null; result: string }
  /**
   * The engine waits for answerApproval(requestId, answer); the fields are ApprovalDetails.
   * `subagent`: the child of session `sessionId` whose call it is (docs/DESIGN.md#sub-agents).
   */
  | ({ type: 'approval'; sessionId: string; requestId: string; subagent?: RequestOrigin } & ApprovalDetails)
  /** The session's "allow for this session" grants changed (granted or revoked, in any window). */
  | { type: 'grants'; sessionId: string; grants: SessionGrant[] }
  /** The engine waits for answerQuestion(requestId, answer); `subagent` as for an approval. */
  | { type: 'question'; sessionId: string; requestId: string; question: string; subagent?: RequestOrigin }
  | {
      type: 'compaction';
      sessionId: string;
      phase: 'start' | 'done' | 'failed';
      before_tokens?: number;
      after_tokens?: number;
      error?: string;
    }
  | { type: 'usage'; sessionId: string; usage: SessionUsage; contextTokens: number; maxContextTokens: number }
  /**
   * A turn ends; `error` is the one-line reason when it failed (model down, hard stop), in
   * the command's words; `failure`, when a model request failed, the same for a window to word.
   */
  | { type: 'turn'; sessionId: string; phase: 'start' | 'end'; error?: string; failure?: ModelFailure }
  /**
   * Something the user should read that is not part of the conversation: a cap that
   * stopped the turn, an interrupted tool call found on resume, secret-looking env vars, a
   * failed model request about to be tried again (then `retry` says the same as data).
   */
  | { type: 'notice'; sessionId: string; level: 'info' | 'warning'; text: string; retry?: ModelRetry }
  /**
   * One session changed, here or in another process on the same data folder (created,
   * renamed, archived, forked, imported, a turn ended…): `meta` is the session now, so a
   * window updates its list and tabs without fetching anything.
   */
  | { type: 'session_changed'; sessionId: string; meta: SessionMeta }
  /** A session was deleted, here or by another process; `meta` is how it was last seen. */
  | { type: 'session_deleted'; sessionId: string; meta: SessionMeta }
  /** A window's "Import from…" (`importId`: the one its request named) has read `done` of `total` files. */
  | { type: 'import_progress'; importId: string; done: number; total: number }
  /**
   * A sub-agent of session `sessionId` started (running) or ended (docs/DESIGN.md#sub-agents):
   * its own session `childId`, the parent's call that started it, its agent and task.
   */
  | { type: 'subagent'; sessionId: string; childId: string; callId: string; agent: string; task: string; state: ChildState };

/** What a turn's request (chat.send, chat.reply) answers once the turn has ended: as the turn's end event says. */
export interface TurnResult {
  error: string | null;
  failure?: ModelFailure;
}

/**
 * A request the engine is waiting on, as its 'approval' or 'question' event announced it:
 * listed again for a window that reloaded (or reconnected) and so missed the event.
 */
export type PendingRequest =
  | ({ kind: 'approval'; requestId: string; subagent?: RequestOrigin } & ApprovalDetails)
  | { kind: 'question'; requestId: string; question: string; subagent?: RequestOrigin };

/**
 * The sub-agent an approval or question of a parent's tab comes from: its own session, the
 * parent's run_subagent call that started it, its agent and task. Absent for the session's own.
 */
export interface RequestOrigin {
  childId: string;
  callId: string;
  agent: string;
  task: string;
}

/** What an approval shows (docs/DESIGN.md#permissions-and-security). */
export interface ApprovalDetails {
  tool: string;
  /** What the tool declares it does; null for a tool the session does not know. */
  effect: ToolEffect | null;
  /** The whole action as text (the CLI prints it; never cut). */
  summary: string;
  /** Why the user is asked. */
  label: string;
  /** The change as a diff, or the whole command. */
  preview: ApprovalPreview | null;
  /** What "allow for this session" grants; null when only once or deny may be answered. */
  offer: GrantOffer | null;
}
