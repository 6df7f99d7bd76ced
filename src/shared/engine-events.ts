/**
 * Events the engine (src/core/engine.ts) sends to whatever front end drives it: the REPL,
 * the Electron renderer, the browser mode. Plain data, so they cross IPC and SSE unchanged.
 */
import type { ChatMessage, MessageFacts, SessionMeta, SessionUsage } from './types';

export type EngineEvent =
  /**
   * A piece of the assistant reply being streamed; `at` is where it starts in the reply, so
   * a window that fetched the reply so far (reloaded) adds only the pieces it lacks.
   */
  | { type: 'text'; sessionId: string; delta: string; at: number }
  /** A message committed to the store (user, assistant, tool result), with the facts recorded with it. */
  | { type: 'message'; sessionId: string; message: ChatMessage; facts: MessageFacts }
  | { type: 'tool_start'; sessionId: string; callId: string; name: string; args: string }
  | { type: 'tool_end'; sessionId: string; callId: string; name: string; result: string }
  /** The engine waits for answerApproval(requestId, allow). */
  | { type: 'approval'; sessionId: string; requestId: string; tool: string; summary: string; label: string }
  /** The engine waits for answerQuestion(requestId, answer). */
  | { type: 'question'; sessionId: string; requestId: string; question: string }
  | {
      type: 'compaction';
      sessionId: string;
      phase: 'start' | 'done' | 'failed';
      before_tokens?: number;
      after_tokens?: number;
      error?: string;
    }
  | { type: 'usage'; sessionId: string; usage: SessionUsage; contextTokens: number; maxContextTokens: number }
  /** A turn ends; `error` is the one-line reason when it failed (model down, hard stop). */
  | { type: 'turn'; sessionId: string; phase: 'start' | 'end'; error?: string }
  /**
   * Something the user should read that is not part of the conversation: a cap that
   * stopped the turn, an interrupted tool call found on resume, secret-looking env vars.
   */
  | { type: 'notice'; sessionId: string; level: 'info' | 'warning'; text: string }
  /**
   * One session changed, here or in another process on the same data folder (created,
   * renamed, archived, forked, imported, a turn ended…): `meta` is the session now, so a
   * window updates its list and tabs without fetching anything.
   */
  | { type: 'session_changed'; sessionId: string; meta: SessionMeta }
  /** A session was deleted, here or by another process; `meta` is how it was last seen. */
  | { type: 'session_deleted'; sessionId: string; meta: SessionMeta };

export type EngineEventType = EngineEvent['type'];

/**
 * A request the engine is waiting on, as its 'approval' or 'question' event announced it:
 * listed again for a window that reloaded (or reconnected) and so missed the event.
 */
export type PendingRequest =
  { kind: 'approval'; requestId: string; tool: string; summary: string; label: string } | { kind: 'question'; requestId: string; question: string };
