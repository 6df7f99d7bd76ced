/**
 * The session changes every face makes the same way (docs/DESIGN.md#who-may-change-a-session):
 * rename, archive, delete and fork, each under the lease rule, each announced to the
 * listeners as an EngineEvent. LoomEngine is this plus the work in sessions (turns, tools,
 * the model); the class stands on its own so that `loom --rename` and the other lifecycle
 * commands load the store and these rules, not the agent, the model client nor the tools
 * (docs/DESIGN.md#command-line).
 */
import type { EngineEvent } from '../shared/engine-events';
import { isUnstarted } from '../shared/message-count';
import type { SessionMeta, TrashedSession } from '../shared/types';
import { errorMessage } from './errors';
import type { SessionStore } from './store/session-store';
import { DEFAULT_TRASH_DAYS } from '../shared/settings';

export type EngineListener = (event: EngineEvent) => void;
/** Told when a listener threw (once per listener); the default writes one line to stderr. */
export type ListenerErrorReporter = (err: unknown, event: EngineEvent) => void;

export class SessionLifecycle {
  readonly store: SessionStore;
  private readonly listeners = new Set<EngineListener>();
  /** Listeners whose failure was already reported: a broken one is reported once, not per event. */
  private readonly failedListeners = new WeakSet<EngineListener>();
  private readonly onListenerError: ListenerErrorReporter;
  /** How many days a deleted session stays in the Trash (docs/DESIGN.md#trash); the settings dialog changes it. */
  protected days: number;

  /** Purges the sessions kept in the Trash past `trashDays` (default 30): every start does. */
  constructor(opts: { store: SessionStore; trashDays?: number; onListenerError?: ListenerErrorReporter }) {
    this.store = opts.store;
    this.days = opts.trashDays ?? DEFAULT_TRASH_DAYS;
    this.onListenerError = opts.onListenerError ?? reportToStderr;
    this.store.purgeExpired(this.days);
  }

  get trashDays(): number {
    return this.days;
  }

  on(listener: EngineListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- lifecycle: the same rules for every face (docs/DESIGN.md#who-may-change-a-session) ----

  /** Sets the user's title; refused while another process works in the session. */
  rename(idOrPrefix: string, title: string): SessionMeta {
    const id = this.store.resolveId(idOrPrefix);
    this.store.whileFree(id, () => this.store.rename(id, title));
    return this.changed(id);
  }

  /** Pins the session on top of the sidebar, or unpins it; refused while another process works in it. */
  setPinned(idOrPrefix: string, pinned: boolean): SessionMeta {
    const id = this.store.resolveId(idOrPrefix);
    this.store.whileFree(id, () => this.store.setPinned(id, pinned));
    return this.changed(id);
  }

  /**
   * Archives (ending this engine's work on it first: an archived session is not worked on)
   * or unarchives; refused while another process works in the session.
   */
  setArchived(idOrPrefix: string, archived: boolean): SessionMeta {
    const id = this.store.resolveId(idOrPrefix);
    if (archived) this.endOwnWork(id); // only this engine's own work: another process's lease is refused below
    this.store.whileFree(id, () => this.store.setArchived(id, archived));
    return this.changed(id);
  }

  /**
   * Deletes the session (ending this engine's work on it first): it goes to the Trash, gone
   * from every list and search at once, purged after `trashDays`. Refused while another
   * process works in it. Returns its id.
   */
  deleteSession(idOrPrefix: string): string {
    const id = this.store.resolveId(idOrPrefix);
    const meta = this.store.getMeta(id);
    this.endOwnWork(id); // only this engine's own work: another process's lease is refused below
    this.store.trash(id); // checks the lease again, in its own transaction
    this.emit({ type: 'session_deleted', sessionId: id, meta });
    return id;
  }

  /**
   * Deletes a session nothing was said in yet (isUnstarted: a new session's tab closed, or
   * left behind by a reload), for good: there is nothing in it to keep in the Trash. False,
   * changing nothing, once it has a message or a title, or while another process works in it.
   */
  discardUnstarted(idOrPrefix: string): boolean {
    const id = this.store.resolveId(idOrPrefix);
    const meta = this.store.getMeta(id);
    if (!isUnstarted(meta)) return false;
    this.endOwnWork(id);
    if (!this.store.deleteUnstarted(id)) return false;
    this.emit({ type: 'session_deleted', sessionId: id, meta });
    return true;
  }

  /** The Trash, most recently deleted first, with when each is purged. */
  listTrash(): TrashedSession[] {
    return this.store.listTrash(this.days);
  }

  /** Brings a session back from the Trash exactly as it was; an id prefix of a trashed session will do. */
  restoreSession(idOrPrefix: string): SessionMeta {
    const id = this.store.resolveTrashedId(idOrPrefix);
    this.store.restore(id);
    return this.changed(id);
  }

  /** Deletes a session in the Trash for good; returns its id. */
  purgeSession(idOrPrefix: string): string {
    const id = this.store.resolveTrashedId(idOrPrefix);
    this.store.purge(id);
    return id;
  }

  /**
   * Everything is committed as it happens, so the fork sees the session as it is now;
   * `at`: share only the first `at` transcript messages.
   */
  fork(sessionId: string, at?: number): SessionMeta {
    const meta = this.store.fork(this.store.resolveId(sessionId), at);
    return this.changed(meta.id);
  }

  /** Ends this process's own work in the session before it is archived or deleted; LoomEngine has some. */
  protected endOwnWork(_sessionId: string): void {}

  protected hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  /** Tells the listeners how the session is now; returns that. */
  protected changed(id: string): SessionMeta {
    const meta = this.store.getMeta(id);
    this.emit({ type: 'session_changed', sessionId: id, meta });
    return meta;
  }

  /** The same, for a session that may have been deleted meanwhile (by this process: a window's Delete during a turn). */
  protected changedIfThere(id: string): void {
    try {
      if (this.store.db.open) this.changed(id);
    } catch {
      // Gone: its session_deleted event said so.
    }
  }

  /**
   * Gives the event to every listener, each on its own: a front end whose listener throws
   * must not cut a turn short (a tool call left without its result) nor starve the others.
   * Returns how many listeners took the event without throwing, and the first failure.
   */
  protected emit(event: EngineEvent): { delivered: number; firstError?: unknown } {
    let delivered = 0;
    let firstError: unknown;
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
        delivered++;
      } catch (err) {
        firstError ??= err;
        this.reportListenerError(listener, err, event);
      }
    }
    return { delivered, firstError };
  }

  private reportListenerError(listener: EngineListener, err: unknown, event: EngineEvent): void {
    if (this.failedListeners.has(listener)) return;
    this.failedListeners.add(listener);
    try {
      this.onListenerError(err, event);
    } catch {
      // A broken reporter must not break the turn either.
    }
  }
}

function reportToStderr(err: unknown, event: EngineEvent): void {
  process.stderr.write(`Warning: a Loom event listener failed on a "${event.type}" event (later failures of it are not reported): ${errorMessage(err)}\n`);
}
