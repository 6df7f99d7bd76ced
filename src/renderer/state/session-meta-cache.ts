/**
 * The window's one copy of what it knows about sessions (title, status, counts…): fetched
 * with `sessions.info` when something first asks, then kept current by the engine's
 * session_changed / session_deleted events, which carry the session as it is now. The
 * header, the tab labels, the info dialog and each chat's first load read it from here
 * instead of asking the engine on their own.
 */
import type { LoomBridge, SessionInfo } from '../../shared/contract';
import type { SessionMeta } from '../../shared/types';

type Listener = () => void;

export class SessionMetaCache {
  private metas = new Map<string, SessionMeta>();
  /** Sessions the engine does not know (deleted, or a stale saved tab). */
  private missing = new Set<string>();
  /** The full info (compactions, usage) as last fetched; dropped when the session changes. */
  private details = new Map<string, Promise<SessionInfo>>();
  /** Bumped by each event about a session, so an answer fetched before it does not overwrite it. */
  private generations = new Map<string, number>();
  private listeners = new Set<Listener>();
  private version = 0;

  constructor(private readonly bridge: LoomBridge) {}

  /** Follows the engine's session events (and catches up after a dropped stream); returns the unsubscribe. */
  connect(): () => void {
    const offEvents = this.bridge.onEvent((event) => {
      if (event.type === 'session_changed') this.learn(event.sessionId, event.meta);
      else if (event.type === 'session_deleted') this.forget(event.sessionId);
    });
    // Changes made while the stream was down were not announced: fetch what this window shows again.
    const offReconnect = this.bridge.onReconnect(() => {
      this.details.clear();
      for (const id of this.metas.keys()) this.info(id).catch(() => {}); // a failure is recorded as missing or left as it was
    });
    return () => {
      offEvents();
      offReconnect();
    };
  }

  subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Changes whenever anything in the cache does (for useSyncExternalStore). */
  getVersion = (): number => this.version;

  meta(id: string): SessionMeta | undefined {
    return this.metas.get(id);
  }

  isMissing(id: string): boolean {
    return this.missing.has(id);
  }

  /** Fetches the session once if nothing is known or on its way yet. */
  request(id: string): void {
    if (!this.metas.has(id) && !this.missing.has(id) && !this.details.has(id)) this.info(id).catch(() => {}); // recorded as missing
  }

  /**
   * The full info: the answer already fetched since the session last changed, else a new
   * request; `fresh` always asks (a chat's load must not miss messages committed mid-turn,
   * which announce no session change).
   */
  info(id: string, { fresh = false } = {}): Promise<SessionInfo> {
    const known = fresh ? undefined : this.details.get(id);
    if (known) return known;
    const generation = this.generations.get(id) ?? 0;
    const answer = this.bridge.invoke('sessions.info', { id });
    this.details.set(id, answer);
    answer.then(
      (info) => {
        if ((this.generations.get(id) ?? 0) === generation) this.store(id, info);
      },
      (err: { code?: string }) => {
        if (this.details.get(id) === answer) this.details.delete(id);
        if (err.code === 'unknown_session') this.forget(id);
      },
    );
    return answer;
  }

  private learn(id: string, meta: SessionMeta): void {
    this.generations.set(id, (this.generations.get(id) ?? 0) + 1);
    this.details.delete(id);
    this.store(id, meta);
  }

  private store(id: string, meta: SessionMeta): void {
    this.missing.delete(id);
    this.metas.set(id, meta);
    this.changed();
  }

  private forget(id: string): void {
    this.generations.set(id, (this.generations.get(id) ?? 0) + 1);
    this.details.delete(id);
    this.metas.delete(id);
    this.missing.add(id);
    this.changed();
  }

  private changed(): void {
    this.version++;
    for (const listener of this.listeners) listener();
  }
}
