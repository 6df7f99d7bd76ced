/**
 * What one open session's tab shows, apart from the transcript's messages (transcript-cache.ts):
 * the count, the reply streaming in, running tools, pending approvals and questions,
 * compaction markers, the context meter, notices and errors. `chatReducer` is the one place
 * it changes: a pure function of the state and one event, the engine's or the controller's
 * (an answer it got, an action the user took). It returns the same object when the event
 * changes nothing, so a duplicated or late event is seen to be harmless.
 */
import type { BridgeEvent, ContextState, PendingRequest, TranscriptSeq } from '../../shared/contract';
import type { ApprovalDetails, RequestOrigin } from '../../shared/engine-events';
import type { ModelFailure, ModelRetry } from '../../shared/model-failure';
import type { CompactionDetail } from '../../shared/types';

/**
 * An approval the engine waits on, with what it shows (the preview) and may grant (the
 * offer); `subagent`: the child whose call it is (its card says it waits).
 */
export interface Approval extends ApprovalDetails {
  requestId: string;
  subagent?: RequestOrigin;
}

export interface Question {
  requestId: string;
  question: string;
  subagent?: RequestOrigin;
}

/** A compaction shown in the transcript before the message at `index`. */
export interface CompactionMarker {
  index: number;
  /** When it was recorded; null for one just announced, until its record is fetched (the reducer reads no clock). */
  at: string | null;
  before_tokens: number;
  after_tokens: number;
  /** What the store recorded of it (range, summary, undone…); null for one just announced, until it is fetched. */
  record: CompactionDetail | null;
}

export interface RunningTool {
  callId: string;
  name: string;
}

export interface Notice {
  id: number;
  level: 'info' | 'warning';
  text: string;
  /** Said during a turn (a retry, a stop, a cap): it is about that turn only. */
  duringTurn: boolean;
}

/**
 * What the session is doing: nothing, a turn, or a compaction (asked for with Compact now,
 * or the engine's own before a request within a turn).
 */
export type ChatPhase = 'idle' | 'running' | 'compacting';

/** A turn or a compaction is under way: no new message, branch or compaction until it ends. */
export function isBusy(phase: ChatPhase): boolean {
  return phase !== 'idle';
}

export interface ChatState {
  loaded: boolean;
  loadError: string | null;
  /** Messages in the transcript, as far as this view knows: it only grows. */
  total: number;
  /** The newest message event applied: one at or before it is a replay, and changes nothing. */
  newestSeq: TranscriptSeq;
  streaming: string;
  /** Reply pieces that came ahead of `streaming` (a reloaded view fetching the reply so far). */
  piecesAhead: { at: number; delta: string }[];
  phase: ChatPhase;
  /** A turn is under way (a compaction within it ends back in 'running'). */
  inTurn: boolean;
  /** Turns seen starting or ending: a load asked before the latest one knows nothing of that turn. */
  turnEvents: number;
  runningTools: RunningTool[];
  approvals: Approval[];
  questions: Question[];
  markers: CompactionMarker[];
  contextTokens: number;
  maxContextTokens: number;
  notices: Notice[];
  lastNoticeId: number;
  /** The last turn's failure (model down…), shown as a banner. */
  error: string | null;
  /** Why a turn was refused until the session's model is chosen (another agent's model, imported): the model dialog asks. */
  modelToChoose: string | null;
  /** When that failure was a model request's: its problem and advice, which the banner words for the window instead. */
  failure: ModelFailure | null;
  /** The turn's model request failed and waits for its next try: one line, updated by each retry. */
  retry: ModelRetry | null;
  /** Files the session's tools changed (relative to its project folder), which can be reverted. */
  changedFiles: string[];
}

export const INITIAL_CHAT_STATE: ChatState = {
  loaded: false,
  loadError: null,
  total: 0,
  newestSeq: -1,
  streaming: '',
  piecesAhead: [],
  phase: 'idle',
  inTurn: false,
  turnEvents: 0,
  runningTools: [],
  approvals: [],
  questions: [],
  markers: [],
  contextTokens: 0,
  maxContextTokens: 0,
  notices: [],
  lastNoticeId: 0,
  error: null,
  modelToChoose: null,
  failure: null,
  retry: null,
  changedFiles: [],
};

/** The engine's events about one session. */
export type SessionEvent = Extract<BridgeEvent, { sessionId: string }>;

/** What the controller learnt or was asked: bridge answers and the user's actions. */
export type ChatAction =
  /** The first load (or one after a reconnect or a change elsewhere); `compactions` null when a newer read is on its way. */
  | {
      type: 'loaded';
      messageCount: number;
      context: ContextState;
      pending: PendingRequest[];
      compactions: CompactionDetail[] | null;
      /** The view's `turnEvents` when the load was asked for. */
      turnEventsAsked: number;
    }
  | { type: 'load_failed'; error: string }
  | { type: 'page_fetched'; total: number }
  | { type: 'markers_fetched'; compactions: CompactionDetail[] }
  | { type: 'changes_fetched'; files: string[] }
  | { type: 'context_measured'; contextTokens: number }
  | { type: 'compact_requested' }
  | { type: 'compact_settled' }
  | { type: 'answered'; requestId: string }
  | { type: 'error_shown'; error: string | null; failure?: ModelFailure }
  | { type: 'model_choice_asked'; reason: string | null }
  | { type: 'notice_dismissed'; id: number };

export type ChatEvent = SessionEvent | ChatAction;

/** How many notices are kept: the newest, the older ones have been read or no longer matter. */
const MAX_NOTICES = 5;

export function chatReducer(state: ChatState, event: ChatEvent): ChatState {
  switch (event.type) {
    case 'text':
      return withText(state, event);
    case 'message':
      if (event.seq <= state.newestSeq) return state;
      // A committed reply replaces the one streaming in.
      return patch(state, {
        newestSeq: event.seq,
        total: Math.max(state.total, event.seq + 1),
        ...(event.message.role === 'assistant' ? { streaming: '', piecesAhead: [] } : {}),
      });
    case 'tool_start': {
      // Its result is in already (a late event), or it is shown: nothing to add.
      const shown = state.runningTools.some((t) => t.callId === event.callId);
      if (event.seq < state.total || shown) return state;
      return patch(state, { runningTools: [...state.runningTools, { callId: event.callId, name: event.name }] });
    }
    case 'tool_end':
      return patch(state, { runningTools: without(state.runningTools, (t) => t.callId === event.callId) });
    case 'approval': {
      if (isShown(state, event.requestId)) return state;
      const { type: _type, sessionId: _sessionId, ...approval } = event;
      return patch(state, { approvals: [...state.approvals, approval] });
    }
    case 'question': {
      if (isShown(state, event.requestId)) return state;
      const { type: _type, sessionId: _sessionId, ...question } = event;
      return patch(state, { questions: [...state.questions, question] });
    }
    case 'compaction':
      return withCompaction(state, event);
    case 'usage':
      return patch(state, { contextTokens: event.contextTokens, maxContextTokens: event.maxContextTokens });
    case 'turn':
      return withTurn(state, event);
    case 'notice': {
      if (event.retry) return patch(state, { retry: event.retry });
      const notice: Notice = { id: state.lastNoticeId + 1, level: event.level, text: event.text, duringTurn: state.inTurn };
      return patch(state, { notices: [...state.notices.slice(1 - MAX_NOTICES), notice], lastNoticeId: notice.id });
    }
    case 'loaded':
      return withLoad(state, event);
    case 'load_failed':
      return patch(state, { loaded: true, loadError: event.error });
    case 'page_fetched':
      return patch(state, { total: Math.max(state.total, event.total) });
    case 'markers_fetched':
      return patch(state, { markers: markersFrom(event.compactions, state.total) });
    case 'changes_fetched':
      return patch(state, { changedFiles: event.files });
    case 'context_measured':
      return patch(state, { contextTokens: event.contextTokens });
    case 'compact_requested':
      return patch(state, { phase: 'compacting' });
    case 'compact_settled':
      return state.phase === 'compacting' ? patch(state, { phase: afterCompaction(state) }) : state;
    case 'answered':
      return patch(state, {
        approvals: without(state.approvals, (a) => a.requestId === event.requestId),
        questions: without(state.questions, (q) => q.requestId === event.requestId),
      });
    case 'error_shown':
      return patch(state, { error: event.error, failure: event.failure ?? null });
    case 'model_choice_asked':
      return patch(state, { modelToChoose: event.reason });
    case 'notice_dismissed':
      return patch(state, { notices: without(state.notices, (n) => n.id === event.id) });
    case 'grants':
    case 'session_changed':
    case 'session_deleted':
    case 'subagent':
    case 'open_session':
      // Not the chat's state: the controller, the grants list and the window follow these.
      return state;
  }
}

/**
 * Adds the part of a reply piece this view lacks: a reloaded window got the reply so far
 * with its first load, and the events around that answer may repeat or precede it.
 */
function withText(state: ChatState, { at, delta }: { at: number; delta: string }): ChatState {
  const { streaming } = state;
  if (at > streaming.length) return patch(state, { piecesAhead: [...state.piecesAhead, { at, delta }] });
  if (at + delta.length <= streaming.length) return state;
  return patch(state, { streaming: streaming + delta.slice(streaming.length - at) });
}

function withCompaction(state: ChatState, event: Extract<SessionEvent, { type: 'compaction' }>): ChatState {
  if (event.phase === 'start') return patch(state, { phase: 'compacting' });
  if (event.phase === 'failed') return patch(state, { phase: afterCompaction(state), error: event.error ?? 'Compaction failed.' });
  const marker: CompactionMarker = {
    index: state.total,
    at: null,
    before_tokens: event.before_tokens ?? 0,
    after_tokens: event.after_tokens ?? 0,
    record: null,
  };
  return patch(state, {
    phase: afterCompaction(state),
    markers: [...state.markers, marker],
    contextTokens: event.after_tokens ?? state.contextTokens,
  });
}

function afterCompaction(state: ChatState): ChatPhase {
  return state.inTurn ? 'running' : 'idle';
}

/**
 * A new turn clears what was said about the last one (its error, retries, "Stopped"); a
 * turn that ends clears its retry line (its failure, if it failed, takes that place), and
 * one that succeeds its own information notices, which were for while it ran.
 */
function withTurn(state: ChatState, event: Extract<SessionEvent, { type: 'turn' }>): ChatState {
  const { notices } = state;
  // A replayed start or end changes nothing, so it is not counted.
  const turnEvents = state.turnEvents + (state.inTurn === (event.phase === 'start') ? 0 : 1);
  if (event.phase === 'start') {
    return patch(state, {
      turnEvents,
      inTurn: true,
      phase: 'running',
      error: null,
      failure: null,
      retry: null,
      streaming: '',
      piecesAhead: [],
      notices: notices.filter((n) => !n.duringTurn),
    });
  }
  return patch(state, {
    turnEvents,
    inTurn: false,
    phase: 'idle',
    streaming: '',
    piecesAhead: [],
    runningTools: [],
    approvals: [],
    questions: [],
    error: event.error ?? null,
    failure: event.failure ?? null,
    retry: null,
    notices: event.error ? notices : notices.filter((n) => !(n.duringTurn && n.level === 'info')),
  });
}

/**
 * A load's answers: the size (never fewer than this view has seen appended meanwhile), the
 * markers, the meter and what the engine waits on — a prompt announced before the load (or
 * while the stream was cut off) is shown again. No turn running: whatever live state this
 * view still shows ended while it was away. A load asked for before a turn started or ended
 * that this view has seen since is stale about that turn, whose events keep its live state.
 * Pieces that came ahead of the reply are added last.
 */
function withLoad(state: ChatState, event: Extract<ChatAction, { type: 'loaded' }>): ChatState {
  const { context } = event;
  const counted: ChatState = {
    ...state,
    loaded: true,
    loadError: null,
    total: Math.max(state.total, event.messageCount),
    markers: event.compactions ? markersFrom(event.compactions, event.messageCount) : state.markers,
    contextTokens: context.contextTokens,
    maxContextTokens: context.maxContextTokens,
  };
  if (event.turnEventsAsked !== state.turnEvents) return counted;
  const loaded: ChatState = {
    ...counted,
    inTurn: context.busy,
    phase: state.phase === 'compacting' ? 'compacting' : context.busy ? 'running' : 'idle',
    piecesAhead: [],
    ...(context.busy
      ? { ...withPending(state, event.pending), streaming: replySoFar(state.streaming, context.replyInFlight) }
      : { streaming: '', runningTools: [], approvals: [], questions: [] }),
  };
  return state.piecesAhead.reduce(withText, loaded);
}

/** The engine's reply so far, unless this view already holds more of it (its events ran ahead of the answer). */
function replySoFar(shown: string, fromEngine: string): string {
  return shown.length > fromEngine.length && shown.startsWith(fromEngine) ? shown : fromEngine;
}

/** The shown prompts plus the pending ones not shown yet (an event may have brought some already). */
function withPending(state: ChatState, pending: PendingRequest[]): Pick<ChatState, 'approvals' | 'questions'> {
  const missing = pending.filter((r) => !isShown(state, r.requestId));
  return {
    approvals: [
      ...state.approvals,
      ...missing.flatMap((r) => {
        if (r.kind !== 'approval') return [];
        const { kind: _kind, ...approval } = r;
        return [approval];
      }),
    ],
    questions: [
      ...state.questions,
      ...missing.flatMap((r) => {
        if (r.kind !== 'question') return [];
        const { kind: _kind, ...question } = r;
        return [question];
      }),
    ],
  };
}

function isShown(state: ChatState, requestId: string): boolean {
  return state.approvals.some((a) => a.requestId === requestId) || state.questions.some((q) => q.requestId === requestId);
}

/** The list without the matching items; the same list when none match, so nothing looks changed. */
function without<T>(list: T[], matches: (item: T) => boolean): T[] {
  return list.some(matches) ? list.filter((item) => !matches(item)) : list;
}

/** The state with `changes`, or the same state when every one of them is already so. */
function patch(state: ChatState, changes: Partial<ChatState>): ChatState {
  const keys = Object.keys(changes) as (keyof ChatState)[];
  return keys.every((key) => Object.is(state[key], changes[key])) ? state : { ...state, ...changes };
}

/**
 * Where each recorded compaction goes in the transcript. The store records the transcript
 * length at the time when it knows it (`transcript_index`); older records without it are
 * shown at the end, in order.
 */
function markersFrom(compactions: CompactionDetail[], messageCount: number): CompactionMarker[] {
  return compactions.map((c) => ({
    index: c.transcript_index ?? messageCount,
    at: c.at,
    before_tokens: c.before_tokens,
    after_tokens: c.after_tokens,
    record: c,
  }));
}
