/**
 * One open session's chat controller: it feeds its state (chat-reducer.ts) the engine's
 * events and the bridge's answers, fills its transcript cache (transcript-cache.ts) page by
 * page as the list scrolls, and carries out every action on the chat (send, stop, compact,
 * approve, answer, edit, regenerate, reply, revert). Components render its snapshot and
 * call it. It only mirrors the engine: every change comes from a bridge answer or an event.
 */
import type { ApprovalAnswer } from '../../shared/approvals';
import type { Attachment } from '../../shared/attachments';
import type { BridgeEvent, LoomBridge } from '../../shared/contract';
import type { TurnResult } from '../../shared/engine-events';
import type { SessionMeta } from '../../shared/types';
import { BridgeError, isAccessLost } from '../bridge/bridge-error';
import { compactOptions } from '../lib/compactions';
import { errorMessage } from '../lib/errors';
import { plural } from '../lib/format';
import { chatReducer, INITIAL_CHAT_STATE, isBusy, type ChatEvent, type ChatState } from './chat-reducer';
import { readDraft, saveDraft } from './drafts';
import type { SessionMetaCache } from './session-meta-cache';
import { PAGE_SIZE, pageOf, TranscriptCache } from './transcript-cache';

/**
 * What Continue sends: a user message after the stopped reply. Re-asking with the context
 * ending on an assistant message is not a valid request for every server (some refuse it,
 * some start a fresh reply), while this keeps user and assistant turns alternating.
 */
const CONTINUE_MESSAGE = 'Continue from where you stopped.';

export interface ChatSnapshot extends ChatState {
  /** Bumped on every change, the transcript cache's included, so views re-render. */
  version: number;
}

type Listener = () => void;

export class ChatSession {
  /** Files attached to the unsent message, kept while other tabs are shown (too large for the saved drafts, state/drafts.ts). */
  draftAttachments: Attachment[] = [];
  readonly transcript = new TranscriptCache();
  /** Pages being fetched: asked for once however often the list scrolls past them. */
  private fetching = new Set<number>();
  private listeners = new Set<Listener>();
  /** Numbers the chat.changes requests, so that a slow, older answer cannot win. */
  private changesRequests = 0;
  /** Numbers the sessions.compactions requests, likewise. */
  private markerRequests = 0;
  private snapshot: ChatSnapshot = { ...INITIAL_CHAT_STATE, version: 0 };
  /** The approvals and questions already shown once: only a new one takes the focus. */
  private promptsShown = new Set<string>();

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

  /**
   * The first load, and again after the event stream reconnected or the session changed
   * elsewhere: the size, the compaction markers, the context meter, what the engine waits
   * on, and the last page.
   */
  async load(): Promise<void> {
    try {
      const request = ++this.markerRequests;
      const turnEventsAsked = this.snapshot.turnEvents;
      const [info, context, pending, compactions] = await Promise.all([
        this.sessions.info(this.id, { fresh: true }),
        this.bridge.invoke('chat.context', { sessionId: this.id }),
        this.bridge.invoke('chat.pending', { sessionId: this.id }),
        this.bridge.invoke('sessions.compactions', { id: this.id }),
      ]);
      void this.refreshChanges();
      if (info.message_count > 0) await this.readPage(pageOf(info.message_count - 1));
      this.apply({
        type: 'loaded',
        messageCount: info.message_count,
        context,
        pending,
        compactions: request === this.markerRequests ? compactions : null,
        turnEventsAsked,
      });
    } catch (err) {
      this.apply({ type: 'load_failed', error: errorMessage(err) });
    }
  }

  /** Makes sure the messages in [start, end] are fetched (the virtual list calls this). */
  ensureRange(start: number, end: number): void {
    for (const page of this.transcript.pagesLacking(start, end, this.snapshot.total)) {
      if (!this.fetching.has(page)) this.readPage(page).catch((err: unknown) => this.apply({ type: 'load_failed', error: errorMessage(err) }));
    }
  }

  private async readPage(page: number): Promise<void> {
    this.fetching.add(page);
    try {
      const result = await this.bridge.invoke('sessions.transcript', { id: this.id, offset: page * PAGE_SIZE, limit: PAGE_SIZE });
      this.transcript.putPage(result);
      this.apply({ type: 'page_fetched', total: result.total }, { transcriptChanged: true });
    } finally {
      this.fetching.delete(page);
    }
  }

  /** Find in session: the transcript positions of the messages holding every term of `query`, in order. */
  async find(query: string): Promise<number[]> {
    return (await this.bridge.invoke('sessions.find', { id: this.id, query })).matches;
  }

  /** Routes one engine event for this session into the cache and the state, then does what it asks for. */
  handle(event: BridgeEvent): void {
    if (!('sessionId' in event) || event.sessionId !== this.id) return;
    const transcriptChanged = event.type === 'message' && this.transcript.put(event.seq, event.message, event.facts);
    const before = this.snapshot;
    this.apply(event, { transcriptChanged });
    switch (event.type) {
      case 'tool_end':
        // The tool declares whether it writes files: no list of tool names here.
        if (event.effect === 'write-files') void this.refreshChanges();
        return;
      case 'compaction':
        // Its record (range, steps, whether undo can take it back) comes from the store.
        if (event.phase === 'done') void this.refreshMarkers();
        return;
      case 'turn':
        if (event.phase === 'end') void this.refreshChanges();
        return;
      case 'session_deleted':
        this.draft = '';
        return;
      case 'session_changed':
        // Messages another process appended (`loom`, or a sync from another device): shown once no turn of this view's is adding its own.
        if (event.meta.message_count > before.total && !isBusy(before.phase)) return void this.load();
        // A compaction undone elsewhere (the info dialog, another window) changes no message count.
        return void this.refreshMarkers();
      default:
        // The state holds all the rest.
        return;
    }
  }

  /** Reads the compaction records again; a failure keeps the markers shown. */
  async refreshMarkers(): Promise<void> {
    const request = ++this.markerRequests;
    try {
      const compactions = await this.bridge.invoke('sessions.compactions', { id: this.id });
      if (request === this.markerRequests) this.apply({ type: 'markers_fetched', compactions });
    } catch {
      // Not worth a banner: the next change to the session reads them again.
    }
  }

  /** Asks the engine which files the session changed; a failure leaves the list as it was. */
  async refreshChanges(): Promise<void> {
    const request = ++this.changesRequests;
    try {
      const { files } = await this.bridge.invoke('chat.changes', { sessionId: this.id });
      if (request === this.changesRequests) this.apply({ type: 'changes_fetched', files });
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

  private async runTurn(turn: () => Promise<TurnResult>): Promise<boolean> {
    this.setError(null);
    try {
      const { error, failure } = await turn();
      if (error) this.apply({ type: 'error_shown', error, ...(failure ? { failure } : {}) });
      return error === null;
    } catch (err) {
      if (err instanceof BridgeError && err.code === 'model_not_chosen') this.apply({ type: 'model_choice_asked', reason: err.message });
      else this.showFailure(err);
      return false;
    }
  }

  /** The model dialog the refusal opened was answered or closed. */
  modelChoiceSettled(): void {
    this.apply({ type: 'model_choice_asked', reason: null });
  }

  stop(): void {
    this.bridge.invoke('chat.stop', { sessionId: this.id }).catch(this.showFailure);
  }

  /**
   * Compact now, keeping `focus` above all (blank: no focus), or only up to transcript
   * message `upTo` (Compact up to here). The engine's compaction events bring the marker
   * and the meter; its one-line refusal is shown as the error.
   */
  async compact({ focus = '', upTo }: { focus?: string; upTo?: number } = {}): Promise<void> {
    this.apply({ type: 'compact_requested' });
    try {
      await this.bridge.invoke('chat.compact', { sessionId: this.id, ...compactOptions(focus, upTo) });
    } catch (err) {
      this.showFailure(err);
    } finally {
      this.apply({ type: 'compact_settled' });
    }
  }

  /** Undoes the last compaction: the earlier working context comes back, its marker shows it undone. */
  async uncompact(): Promise<void> {
    this.setError(null);
    try {
      const { contextTokens } = await this.bridge.invoke('chat.uncompact', { sessionId: this.id });
      this.apply({ type: 'context_measured', contextTokens });
    } catch (err) {
      this.showFailure(err);
    }
    await this.refreshMarkers();
  }

  /** 'session' also grants what the approval offered, for the rest of the session. */
  approve(requestId: string, answer: ApprovalAnswer): void {
    this.apply({ type: 'answered', requestId });
    this.bridge.invoke('chat.approve', { requestId, answer }).catch(this.showFailure);
  }

  /** `value` null: the question is skipped. */
  answer(requestId: string, value: string | null): void {
    this.apply({ type: 'answered', requestId });
    this.bridge.invoke('chat.answer', { requestId, answer: value }).catch(this.showFailure);
  }

  /** A new branch with `text` in place of the user message at `index`; its reply is asked for in the branch. */
  edit(index: number, text: string): Promise<SessionMeta> {
    return this.bridge.invoke('chat.edit', { sessionId: this.id, index, text });
  }

  /** A sibling branch for the reply at `index`, to be answered again there. */
  regenerate(index: number): Promise<SessionMeta> {
    return this.bridge.invoke('chat.regenerate', { sessionId: this.id, index });
  }

  /** True while the prompt (approval, question) is first shown in this window, false once it has been. */
  isNewPrompt = (requestId: string): boolean => {
    if (this.promptsShown.has(requestId)) return false;
    // Marked a task later: StrictMode mounts a component twice within one task, and both are its first showing.
    setTimeout(() => this.promptsShown.add(requestId));
    return true;
  };

  setError(error: string | null): void {
    this.apply({ type: 'error_shown', error });
  }

  /** Shows a failed request's reason as the chat's error (a lost access is the window's banner already). */
  showFailure = (err: unknown): void => {
    if (!isAccessLost(err)) this.setError(errorMessage(err));
  };

  private notify(level: 'info' | 'warning', text: string): void {
    this.apply({ type: 'notice', sessionId: this.id, level, text });
  }

  dismissNotice(id: number): void {
    this.apply({ type: 'notice_dismissed', id });
  }

  /** Runs the event through the reducer; listeners hear of it when the state or the transcript changed. */
  private apply(event: ChatEvent, { transcriptChanged = false } = {}): void {
    const next = chatReducer(this.snapshot, event);
    if (next === this.snapshot && !transcriptChanged) return;
    this.snapshot = { ...next, version: this.snapshot.version + 1 };
    for (const listener of this.listeners) listener();
  }
}
