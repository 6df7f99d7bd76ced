/**
 * One open session's chat controller: what its tab shows (the transcript, fetched in pages
 * as it scrolls into view, so a 5,000-message session opens at once; the reply streaming
 * in, pending approvals and questions, compaction markers and the context meter) and every
 * action on the chat (send, stop, compact, approve, answer, edit, regenerate, reply).
 * Components render its snapshot and call it. It only mirrors the engine: every change
 * comes from a bridge answer or an engine event.
 */
import type { ApprovalAnswer } from '../../shared/approvals';
import type { Attachment } from '../../shared/attachments';
import type { BridgeEvent, LoomBridge, PendingRequest } from '../../shared/contract';
import type { ApprovalDetails } from '../../shared/engine-events';
import type { ChatMessage, CompactionDetail, MessageFacts, SessionMeta } from '../../shared/types';
import { compactOptions } from '../lib/compactions';
import { plural } from '../lib/format';
import { readDraft, saveDraft } from './drafts';
import type { SessionMetaCache } from './session-meta-cache';

export const PAGE_SIZE = 200;

/** An approval the engine waits on, with what it shows (the preview) and may grant (the offer). */
export interface Approval extends ApprovalDetails {
  requestId: string;
}

export interface Question {
  requestId: string;
  question: string;
}

/** A compaction shown in the transcript before the message at `index`. */
export interface CompactionMarker {
  index: number;
  at: string;
  before_tokens: number;
  after_tokens: number;
  /** What the store recorded of it (range, summary, undone…); null for one just announced, until it is fetched. */
  record: CompactionDetail | null;
}

export interface RunningTool {
  callId: string;
  name: string;
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

/**
 * What Continue sends: a user message after the stopped reply. Re-asking with the context
 * ending on an assistant message is not a valid request for every server (some refuse it,
 * some start a fresh reply), while this keeps user and assistant turns alternating.
 */
export const CONTINUE_MESSAGE = 'Continue from where you stopped.';

export interface ChatSnapshot {
  loaded: boolean;
  loadError: string | null;
  total: number;
  /** Bumped on every change so views re-render. */
  version: number;
  streaming: string;
  phase: ChatPhase;
  runningTools: RunningTool[];
  approvals: Approval[];
  questions: Question[];
  markers: CompactionMarker[];
  contextTokens: number;
  maxContextTokens: number;
  notices: Notice[];
  /** The last turn's failure (model down…), shown as a banner. */
  error: string | null;
  /** Files the session's tools changed (relative to its project folder), which can be reverted. */
  changedFiles: string[];
}

export interface Notice {
  id: number;
  level: 'info' | 'warning';
  text: string;
  /** Said during a turn (a retry, a stop, a cap): it is about that turn only. */
  duringTurn: boolean;
}

type Listener = () => void;

export class ChatSession {
  /** Files attached to the unsent message, kept while other tabs are shown (too large for the saved drafts, state/drafts.ts). */
  draftAttachments: Attachment[] = [];
  private pages = new Map<number, ChatMessage[]>();
  /** Each page's message facts, aligned with `pages` (null for a message without). */
  private factPages = new Map<number, (MessageFacts | null)[]>();
  private loading = new Set<number>();
  private listeners = new Set<Listener>();
  private noticeIds = 0;
  /** Reply pieces that came ahead of what this view holds, while the reply so far is being fetched. */
  private piecesAhead: { at: number; delta: string }[] = [];
  /** Numbers the chat.changes requests, so that a slow, older answer cannot win. */
  private changesRequests = 0;
  /** Numbers the sessions.compactions requests, likewise. */
  private markerRequests = 0;
  /** A turn is under way (a compaction within it ends back in 'running'). */
  private inTurn = false;
  private snapshot: ChatSnapshot = {
    loaded: false,
    loadError: null,
    total: 0,
    version: 0,
    streaming: '',
    phase: 'idle',
    runningTools: [],
    approvals: [],
    questions: [],
    markers: [],
    contextTokens: 0,
    maxContextTokens: 0,
    notices: [],
    error: null,
    changedFiles: [],
  };

  constructor(
    readonly id: string,
    private readonly bridge: LoomBridge,
    private readonly sessions: SessionMetaCache,
  ) {}

  subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): ChatSnapshot => this.snapshot;

  /** What is typed in this tab's message box, kept while other tabs are shown and across reloads. */
  get draft(): string {
    return readDraft(this.id);
  }

  set draft(text: string) {
    saveDraft(this.id, text);
  }

  message(index: number): ChatMessage | undefined {
    return this.pages.get(Math.floor(index / PAGE_SIZE))?.[index % PAGE_SIZE];
  }

  /** What the store recorded with the message at `index` (time, model, tokens…), null when nothing. */
  facts(index: number): MessageFacts | null {
    return this.factPages.get(Math.floor(index / PAGE_SIZE))?.[index % PAGE_SIZE] ?? null;
  }

  /** The name of the tool whose call `callId` is, looking back from a tool result at `index`. */
  toolNameFor(callId: string, index: number): string | undefined {
    for (let i = index - 1; i >= Math.max(0, index - 256); i--) {
      const message = this.message(i);
      const call = message?.role === 'assistant' ? message.tool_calls?.find((c) => c.id === callId) : undefined;
      if (call) return call.function.name;
    }
    return undefined;
  }

  /**
   * The first load, and again after the event stream reconnected: the size, the last page,
   * the compaction markers, the context meter, and what the engine waits on — a prompt
   * announced before this page loaded (or while it was cut off) is shown again.
   */
  async load(): Promise<void> {
    try {
      const request = ++this.markerRequests;
      const [info, context, pending, compactions] = await Promise.all([
        this.sessions.info(this.id, { fresh: true }),
        this.bridge.invoke('chat.context', { sessionId: this.id }),
        this.bridge.invoke('chat.pending', { sessionId: this.id }),
        this.bridge.invoke('sessions.compactions', { id: this.id }),
      ]);
      this.update({
        // Never fewer than this view has seen appended meanwhile (the transcript only grows).
        total: Math.max(this.snapshot.total, info.message_count),
        ...(request === this.markerRequests ? { markers: markersFrom(compactions, info.message_count) } : {}),
        contextTokens: context.contextTokens,
        maxContextTokens: context.maxContextTokens,
        ...this.turnRunning(context.busy),
        // No turn running: whatever live state this view still shows ended while it was away.
        ...(context.busy
          ? { ...this.withPending(pending), streaming: this.replySoFar(context.replyInFlight) }
          : { streaming: '', runningTools: [], approvals: [], questions: [] }),
      });
      for (const piece of this.piecesAhead.splice(0)) this.onText(piece);
      void this.refreshChanges();
      if (info.message_count > 0) await this.fetchPage(Math.floor((info.message_count - 1) / PAGE_SIZE));
      this.update({ loaded: true, loadError: null });
    } catch (err) {
      this.update({ loaded: true, loadError: (err as Error).message });
    }
  }

  /** Makes sure the messages in [start, end] are fetched (the virtual list calls this). */
  ensureRange(start: number, end: number): void {
    const last = Math.min(end, this.snapshot.total - 1);
    for (let page = Math.floor(Math.max(0, start) / PAGE_SIZE); page <= Math.floor(last / PAGE_SIZE); page++) {
      if (!this.pages.has(page) && !this.loading.has(page)) void this.fetchPage(page);
    }
  }

  private async fetchPage(page: number, attempt = 1): Promise<void> {
    this.loading.add(page);
    let serverTotal = Infinity;
    try {
      const result = await this.bridge.invoke('sessions.transcript', { id: this.id, offset: page * PAGE_SIZE, limit: PAGE_SIZE });
      serverTotal = result.total;
      // The transcript only grows: a copy fetched before a message was appended live never replaces a longer one.
      if ((this.pages.get(page)?.length ?? -1) <= result.messages.length) {
        this.pages.set(page, result.messages);
        this.factPages.set(page, result.facts);
      }
      this.update({ total: Math.max(this.snapshot.total, result.total) });
    } catch (err) {
      this.update({ loadError: (err as Error).message });
    } finally {
      this.loading.delete(page);
    }
    // A message appended live while this page was in flight was not kept (the page was not here yet): fetch it again.
    if (serverTotal < this.snapshot.total && this.pageIsShort(page) && attempt < 3) await this.fetchPage(page, attempt + 1);
  }

  private pageIsShort(page: number): boolean {
    const cached = this.pages.get(page);
    return cached !== undefined && cached.length < Math.min(PAGE_SIZE, this.snapshot.total - page * PAGE_SIZE);
  }

  /** Routes one engine event for this session into the view state. */
  handle(event: BridgeEvent): void {
    if (!('sessionId' in event) || event.sessionId !== this.id) return;
    const s = this.snapshot;
    switch (event.type) {
      case 'text':
        return this.onText(event);
      case 'message':
        return this.append(event.message, event.facts);
      case 'tool_start':
        return this.update({ runningTools: [...s.runningTools, { callId: event.callId, name: event.name }] });
      case 'tool_end':
        // The tool declares whether it writes files: no list of tool names here.
        if (event.effect === 'write-files') void this.refreshChanges();
        return this.update({ runningTools: s.runningTools.filter((t) => t.callId !== event.callId) });
      case 'approval': {
        const { type: _type, sessionId: _sessionId, ...approval } = event;
        return this.update({ approvals: [...s.approvals, approval] });
      }
      case 'question':
        return this.update({ questions: [...s.questions, { requestId: event.requestId, question: event.question }] });
      case 'compaction':
        return this.onCompaction(event);
      case 'usage':
        return this.update({ contextTokens: event.contextTokens, maxContextTokens: event.maxContextTokens });
      case 'turn':
        return this.onTurn(event);
      case 'notice':
        return this.notify(event.level, event.text);
      case 'session_deleted':
        this.draft = '';
        return;
      case 'session_changed':
        // Messages another process appended (`loom`, or a sync from another device): shown once no turn of this view's is adding its own.
        if (event.meta.message_count > s.total && !isBusy(s.phase)) return void this.load();
        // A compaction undone elsewhere (the info dialog, another window) changes no message count.
        return void this.refreshMarkers();
      case 'open_session':
        // The window follows these.
        return;
      case 'grants':
        // The info dialog's grants list (useSessionGrants) follows these.
        return;
    }
  }

  /** The engine's reply so far, unless this view already holds more of it (its events ran ahead of the answer). */
  private replySoFar(fromEngine: string): string {
    const shown = this.snapshot.streaming;
    return shown.length > fromEngine.length && shown.startsWith(fromEngine) ? shown : fromEngine;
  }

  /**
   * Adds the part of a reply piece this view lacks: a reloaded window got the reply so far
   * with its first load, and the events around that answer may repeat or precede it.
   */
  private onText({ at, delta }: { at: number; delta: string }): void {
    const streaming = this.snapshot.streaming;
    if (at > streaming.length) return void this.piecesAhead.push({ at, delta });
    if (at + delta.length <= streaming.length) return;
    this.update({ streaming: streaming + delta.slice(streaming.length - at) });
  }

  private append(message: ChatMessage, facts: MessageFacts): void {
    const index = this.snapshot.total;
    const page = Math.floor(index / PAGE_SIZE);
    const slot = index % PAGE_SIZE;
    const cached = this.pages.get(page);
    if (cached && cached.length === slot) {
      cached.push(message);
      this.factPages.get(page)?.push(facts);
    } else if (!cached && slot === 0 && (index === 0 || this.pages.has(page - 1))) {
      this.pages.set(page, [message]);
      this.factPages.set(page, [facts]);
    }
    // Otherwise that page was never fetched: it is fetched when it scrolls into view.
    const committedReply = message.role === 'assistant';
    if (committedReply) this.piecesAhead = [];
    this.update({ total: index + 1, streaming: committedReply ? '' : this.snapshot.streaming });
  }

  private onCompaction(event: Extract<BridgeEvent, { type: 'compaction' }>): void {
    if (event.phase === 'start') return this.update({ phase: 'compacting' });
    if (event.phase === 'failed') return this.update({ phase: this.afterCompaction(), error: event.error ?? 'Compaction failed.' });
    const marker: CompactionMarker = {
      index: this.snapshot.total,
      at: new Date().toISOString(),
      before_tokens: event.before_tokens ?? 0,
      after_tokens: event.after_tokens ?? 0,
      record: null,
    };
    this.update({
      phase: this.afterCompaction(),
      markers: [...this.snapshot.markers, marker],
      contextTokens: event.after_tokens ?? this.snapshot.contextTokens,
    });
    // Its record (range, steps, whether undo can take it back) comes from the store.
    void this.refreshMarkers();
  }

  /** Reads the compaction records again; a failure keeps the markers shown. */
  async refreshMarkers(): Promise<void> {
    const request = ++this.markerRequests;
    try {
      const compactions = await this.bridge.invoke('sessions.compactions', { id: this.id });
      if (request === this.markerRequests) this.update({ markers: markersFrom(compactions, this.snapshot.total) });
    } catch {
      // Not worth a banner: the next change to the session reads them again.
    }
  }

  private afterCompaction(): ChatPhase {
    return this.inTurn ? 'running' : 'idle';
  }

  /** The phase for the engine's answer "a turn is (not) running", keeping a compaction in progress. */
  private turnRunning(running: boolean): Pick<ChatSnapshot, 'phase'> {
    this.inTurn = running;
    if (this.snapshot.phase === 'compacting') return { phase: 'compacting' };
    return { phase: running ? 'running' : 'idle' };
  }

  /**
   * A new turn clears what was said about the last one (its error, retries, "Stopped"); a
   * turn that succeeds clears its own retry notices, which were information while it waited.
   */
  private onTurn(event: Extract<BridgeEvent, { type: 'turn' }>): void {
    const notices = this.snapshot.notices;
    this.piecesAhead = [];
    if (event.phase === 'start') {
      this.inTurn = true;
      return this.update({ phase: 'running', error: null, streaming: '', notices: notices.filter((n) => !n.duringTurn) });
    }
    this.inTurn = false;
    void this.refreshChanges();
    const kept = event.error ? notices : notices.filter((n) => !(n.duringTurn && n.level === 'info'));
    this.update({ phase: 'idle', streaming: '', runningTools: [], approvals: [], questions: [], error: event.error ?? null, notices: kept });
  }

  /** The shown prompts plus the pending ones not shown yet (an event may have brought some already). */
  private withPending(pending: PendingRequest[]): Pick<ChatSnapshot, 'approvals' | 'questions'> {
    const { approvals, questions } = this.snapshot;
    const shown = new Set([...approvals, ...questions].map((r) => r.requestId));
    const missing = pending.filter((r) => !shown.has(r.requestId));
    return {
      approvals: [
        ...approvals,
        ...missing.flatMap((r) => {
          if (r.kind !== 'approval') return [];
          const { kind: _kind, ...approval } = r;
          return [approval];
        }),
      ],
      questions: [...questions, ...missing.flatMap((r) => (r.kind === 'question' ? [{ requestId: r.requestId, question: r.question }] : []))],
    };
  }

  /** Asks the engine which files the session changed; a failure leaves the list as it was. */
  async refreshChanges(): Promise<void> {
    const request = ++this.changesRequests;
    try {
      const { files } = await this.bridge.invoke('chat.changes', { sessionId: this.id });
      if (request === this.changesRequests) this.update({ changedFiles: files });
    } catch {
      // Not worth a banner: the list is refreshed again after the next turn.
    }
  }

  /** Puts the changed files back as they were; throws the engine's reason when it refuses. */
  async revertChanges(): Promise<string[]> {
    const { reverted, leftAlone } = await this.bridge.invoke('chat.revert', { sessionId: this.id });
    await this.refreshChanges();
    this.notify('info', `Reverted ${plural(reverted.length, 'file')} to how they were before this session.`);
    for (const file of leftAlone) this.notify('warning', `Not reverted: ${file.reason}`);
    return reverted;
  }

  /** Sends a message (with its attachments) and runs the turn; resolves to false when it failed (the error is shown). */
  send(text: string, attachments: Attachment[] = []): Promise<boolean> {
    return this.runTurn(() => this.bridge.invoke('chat.send', { sessionId: this.id, text, ...(attachments.length ? { attachments } : {}) }));
  }

  /** Asks the model to go on after a stopped reply. */
  continueReply(): Promise<boolean> {
    return this.send(CONTINUE_MESSAGE);
  }

  /** Asks the model to answer the user message the session ends with (a branch, or a reply that failed). */
  reply(): Promise<boolean> {
    return this.runTurn(() => this.bridge.invoke('chat.reply', { sessionId: this.id }));
  }

  private async runTurn(turn: () => Promise<{ error: string | null }>): Promise<boolean> {
    this.setError(null);
    try {
      const { error } = await turn();
      if (error) this.setError(error);
      return error === null;
    } catch (err) {
      this.setError((err as Error).message);
      return false;
    }
  }

  stop(): void {
    this.bridge.invoke('chat.stop', { sessionId: this.id }).catch((err: Error) => this.setError(err.message));
  }

  /**
   * Compact now, keeping `focus` above all (blank: no focus), or only up to transcript
   * message `upTo` (Compact up to here). The engine's compaction events bring the marker
   * and the meter; its one-line refusal is shown as the error.
   */
  async compact({ focus = '', upTo }: { focus?: string; upTo?: number } = {}): Promise<void> {
    this.update({ phase: 'compacting' });
    try {
      await this.bridge.invoke('chat.compact', { sessionId: this.id, ...compactOptions(focus, upTo) });
    } catch (err) {
      this.setError((err as Error).message);
    } finally {
      if (this.snapshot.phase === 'compacting') this.update({ phase: this.afterCompaction() });
    }
  }

  /** Undoes the last compaction: the earlier working context comes back, its marker shows it undone. */
  async uncompact(): Promise<void> {
    this.setError(null);
    try {
      const { contextTokens } = await this.bridge.invoke('chat.uncompact', { sessionId: this.id });
      this.update({ contextTokens });
    } catch (err) {
      this.setError((err as Error).message);
    }
    await this.refreshMarkers();
  }

  /** 'session' also grants what the approval offered, for the rest of the session. */
  approve(requestId: string, answer: ApprovalAnswer): void {
    this.answered(requestId);
    this.bridge.invoke('chat.approve', { requestId, answer }).catch((err: Error) => this.setError(err.message));
  }

  /** `value` null: the question is skipped. */
  answer(requestId: string, value: string | null): void {
    this.answered(requestId);
    this.bridge.invoke('chat.answer', { requestId, answer: value }).catch((err: Error) => this.setError(err.message));
  }

  /** A new branch with `text` in place of the user message at `index`; its reply is asked for in the branch. */
  edit(index: number, text: string): Promise<SessionMeta> {
    return this.bridge.invoke('chat.edit', { sessionId: this.id, index, text });
  }

  /** A sibling branch for the reply at `index`, to be answered again there. */
  regenerate(index: number): Promise<SessionMeta> {
    return this.bridge.invoke('chat.regenerate', { sessionId: this.id, index });
  }

  private answered(requestId: string): void {
    this.update({
      approvals: this.snapshot.approvals.filter((a) => a.requestId !== requestId),
      questions: this.snapshot.questions.filter((q) => q.requestId !== requestId),
    });
  }

  setError(error: string | null): void {
    this.update({ error });
  }

  private notify(level: 'info' | 'warning', text: string): void {
    const notice: Notice = { id: ++this.noticeIds, level, text, duringTurn: this.inTurn };
    this.update({ notices: [...this.snapshot.notices.slice(-4), notice] });
  }

  dismissNotice(id: number): void {
    this.update({ notices: this.snapshot.notices.filter((n) => n.id !== id) });
  }

  private update(patch: Partial<ChatSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...patch, version: this.snapshot.version + 1 };
    for (const listener of this.listeners) listener();
  }
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
