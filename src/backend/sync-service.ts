/**
 * The background sync of a window's backend (docs/DESIGN.md#sync-through-a-hub): when a
 * hub is set, it syncs on start, shortly after each local change, when the hub announces
 * another device's push (LISTEN/NOTIFY), and every few minutes in case an announcement was
 * missed; when the hub cannot be reached it retries with a growing pause while the changes
 * queue. One sync runs at a time. Every window hears the status line as it changes.
 *
 * The hub work itself (core/sync) comes through the HubSync port, so this file holds only
 * the when; hub-sync.ts is the how.
 */
import type { SessionSearchHit, ShareResult, SyncStatus } from '../shared/sync';
import type { SessionMeta } from '../shared/types';
import { errorMessage, LoomError } from '../core/errors';

/** A team search hit as the hub answers it (core/sync/team-search.ts). */
export interface HubHit {
  sessionId: string;
  title: string | null;
  owner: string;
  snippet: string;
  updatedAt: string;
}

export interface TeamSearchOptions {
  limit: number;
  offset: number;
  /** Archived sessions too (deleted ones never). */
  includeArchived?: boolean;
}

/** What the service needs of core/sync; every `url` is the hub URL with its password. */
export interface HubSync {
  /** Throws a LoomError (one line, no password) when the URL is not one Loom can use. */
  check(url: string): void;
  /**
   * One sync (pull, push); rejects with a LoomError line. Answers the teams whose shares the hub refused (not a member),
   * and the malformed rows from the hub it skipped, each named.
   */
  sync(url: string, signal: AbortSignal): Promise<{ refusedTeams: string[]; skipped: string[] }>;
  /** Why the hub could not be reached ("connection refused"), or null when the error is something to fix, not to wait out. */
  unreachable(err: unknown): string | null;
  /** Local changes not yet on the hub. */
  queued(): number;
  /** Calls onChange whenever another device pushed; keeps listening across drops. */
  listen(url: string, onChange: () => void): Promise<{ close(): Promise<void> }>;
  /** Queues sharing the session with the team. */
  share(sessionId: string, team: string): void;
  search(url: string, query: string, options: TeamSearchOptions): Promise<HubHit[]>;
  /** Releases what it holds (its store connection). */
  close(): void;
}

export interface SyncTiming {
  /** Local changes and announcements within this pause make one sync. */
  debounceMs: number;
  /** The first retry after the hub could not be reached; each next one waits twice as long, up to retryMaxMs. */
  retryFirstMs: number;
  retryMaxMs: number;
  /** A sync this often even when nothing was heard (a missed announcement, a hub without NOTIFY). */
  pollMs: number;
}

export const DEFAULT_SYNC_TIMING: SyncTiming = { debounceMs: 100, retryFirstMs: 1000, retryMaxMs: 60_000, pollMs: 5 * 60_000 };

const OFF: SyncStatus = { state: 'off', line: 'Sync is off: no hub is set.', queued: 0 };

export class SyncService {
  private current: SyncStatus = OFF;
  private readonly listeners = new Set<(status: SyncStatus) => void>();
  private running: Promise<void> | null = null;
  /** Something happened during the running sync: run once more after it. */
  private again = false;
  private failures = 0;
  private timer: NodeJS.Timeout | null = null;
  private debounce: NodeJS.Timeout | null = null;
  /** The hub announced another device's push since the last decision. */
  private announced = false;
  private listener: Promise<{ close(): Promise<void> } | null> | null = null;
  private readonly abort = new AbortController();
  /** Teams whose shares a hub refused (the user is not a member), as syncs report them. */
  private readonly refusedTeams = new Set<string>();
  private closed = false;

  constructor(
    private readonly hub: HubSync,
    private url: string | null,
    private readonly findMeta: (sessionId: string) => SessionMeta | null,
    private readonly timing: SyncTiming = DEFAULT_SYNC_TIMING,
  ) {}

  /** Starts syncing when a hub is set. */
  start(): void {
    if (this.url) void this.run();
  }

  status(): SyncStatus {
    return this.current;
  }

  onStatus(listener: (status: SyncStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Throws the one-line reason a hub URL cannot be used; '' (sync off) is fine. */
  check(url: string): void {
    if (url) this.hub.check(url);
  }

  /** A new hub (or none): stops listening to the old one and syncs with the new one. */
  async configure(url: string | null): Promise<void> {
    if (url === this.url) return;
    this.url = url;
    this.failures = 0;
    this.clearTimer();
    await this.stopListening();
    if (!url) return this.publish(OFF);
    this.publish({ ...OFF, state: 'syncing', line: 'Syncing…' }); // not the old hub's line
    void this.run();
  }

  /** Something changed in the store (here or in another process): push it soon. */
  localChange(): void {
    this.soon();
  }

  /** Syncs now (Sync now), the retry pause forgotten; answers with the status after it. */
  async syncNow(): Promise<SyncStatus> {
    this.failures = 0;
    await this.run();
    return this.current;
  }

  /** Queues the share and syncs; the line says whether it reached the hub. */
  async share(sessionId: string, team: string): Promise<ShareResult> {
    if (!this.url) throw new LoomError('Set a sync hub in Settings first: sessions are shared through it.', 'sync_off');
    this.refusedTeams.delete(team);
    this.hub.share(sessionId, team);
    await this.syncNow();
    if (this.refusedTeams.has(team)) throw new LoomError(`The hub did not share it: you are not a member of the team "${team}" there.`, 'share_refused');
    if (this.current.state === 'synced') return { line: `Shared with the team "${team}".` };
    return { line: `The share with "${team}" is queued: ${this.current.line}` };
  }

  /** The hub's full-text search; a hit already on this device carries its local metadata. */
  async searchTeam(query: string, options: TeamSearchOptions): Promise<SessionSearchHit[]> {
    if (!this.url) throw new LoomError('Set a sync hub in Settings first: the team scope searches it.', 'sync_off');
    const hits = await this.hub.search(this.url, query, options);
    return hits.map((hit) => {
      const meta = this.findMeta(hit.sessionId);
      const team = { owner: hit.owner, synced: meta !== null };
      return { ...(meta ?? notSyncedMeta(hit)), snippet: hit.snippet, message_index: null, team };
    });
  }

  /** Stops every timer and the listener, waits for a sync in flight to stop, then releases the hub's store connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.clearTimer();
    if (this.debounce) clearTimeout(this.debounce);
    this.abort.abort();
    await Promise.allSettled([this.running, this.stopListening()]);
    this.hub.close();
  }

  /** Local changes and announcements within the debounce pause make one decision. */
  private soon(): void {
    if (this.closed || !this.url) return;
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.debounce = null;
      this.decide();
    }, this.timing.debounceMs);
  }

  /**
   * Syncs when the hub announced something (also the listener's "I am back") or changes
   * wait; while the hub is known to be away, changes only update the count (its retry is scheduled).
   */
  private decide(): void {
    const announced = this.announced;
    this.announced = false;
    const away = this.current.state === 'offline' || this.current.state === 'error';
    if (announced || (!away && this.hub.queued() > 0)) void this.run();
    else if (away) this.publish({ ...this.current, ...this.queuedLine(this.current.line) });
  }

  private run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.loop().finally(() => (this.running = null));
    return this.running;
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      await this.once();
    } while (this.again && !this.closed);
  }

  private async once(): Promise<void> {
    const url = this.url;
    if (!url || this.closed) return;
    this.clearTimer();
    // The line stays as it was while a sync runs (it says Syncing… only before the first): no flicker, and screen readers hear changes only.
    this.publish({ ...this.current, state: 'syncing', line: this.current.state === 'off' ? 'Syncing…' : this.current.line, queued: this.hub.queued() });
    try {
      const { refusedTeams, skipped } = await this.hub.sync(url, this.abort.signal);
      if (url !== this.url || this.closed) return;
      for (const team of refusedTeams) this.refusedTeams.add(team);
      this.failures = 0;
      const lastSyncAt = new Date();
      const line = `Synced ${clockTime(lastSyncAt)}${skippedNote(skipped)}`;
      this.publish({ state: 'synced', line, queued: this.hub.queued(), lastSyncAt: lastSyncAt.toISOString() });
      this.schedule(this.timing.pollMs);
      this.listenTo(url);
    } catch (err) {
      if (url !== this.url || this.closed) return;
      const reason = this.hub.unreachable(err);
      const line = reason ? waitingLine(reason) : scrub(errorMessage(err).replace(/\.$/, ''), url);
      this.publish({ ...this.current, state: reason ? 'offline' : 'error', ...this.queuedLine(line) });
      this.failures += 1;
      this.schedule(reason ? Math.min(this.timing.retryFirstMs * 2 ** (this.failures - 1), this.timing.retryMaxMs) : this.timing.pollMs);
    }
  }

  /** A failure's line with the number of changes waiting; `line` may already carry an older count. */
  private queuedLine(line: string): Pick<SyncStatus, 'line' | 'queued'> {
    const queued = this.hub.queued();
    const reason = line.replace(/: (nothing|\d+ changes?) queued$/, '');
    return { queued, line: `${reason}: ${queued === 0 ? 'nothing' : `${queued} change${queued === 1 ? '' : 's'}`} queued` };
  }

  private listenTo(url: string): void {
    if (this.listener) return;
    const announced = () => {
      this.announced = true;
      this.soon();
    };
    // Started after a sync went well: the hub is there. A push that landed between that sync's pull and the LISTEN
    // was announced to nobody, so a listener that is up syncs once. One that cannot start is tried after the next sync.
    this.listener = this.hub.listen(url, announced).then(
      (listener) => {
        announced();
        return listener;
      },
      () => {
        this.listener = null;
        return null;
      },
    );
  }

  private async stopListening(): Promise<void> {
    const listener = this.listener;
    this.listener = null;
    await (await listener)?.close();
  }

  private schedule(ms: number): void {
    this.clearTimer();
    if (!this.closed) this.timer = setTimeout(() => void this.run(), ms);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private publish(status: SyncStatus): void {
    this.current = status;
    for (const listener of this.listeners) listener(status);
  }
}

/** A teammate's malformed rows, skipped (core/sync/pulled-rows.ts): said on the status line, the first one named. */
function skippedNote(skipped: string[]): string {
  if (skipped.length === 0) return '';
  const rows = skipped.length === 1 ? '1 malformed row' : `${skipped.length} malformed rows`;
  return `; skipped ${rows} from the hub (${skipped[0]}${skipped.length > 1 ? '; …' : ''})`;
}

/** Why the sync waits: the hub away, or held up by another connection's lock (core/sync's 'busy'). */
function waitingLine(reason: string): string {
  return reason === 'busy' ? 'Hub busy (another connection holds a lock)' : `Hub unreachable (${reason})`;
}

/** "10:42", in this machine's time. */
function clockTime(date: Date): string {
  return date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hour12: false });
}

/** A line never carries the hub password, whatever produced it. */
function scrub(line: string, url: string): string {
  const password = URL.canParse(url) ? decodeURIComponent(new URL(url).password) : '';
  return password ? line.split(password).join('***') : line;
}

/** A team hit whose session has not reached this device: what the hub told about it, nothing more. */
function notSyncedMeta(hit: HubHit): SessionMeta {
  return {
    id: hit.sessionId,
    parent_id: null,
    title: hit.title,
    summary: null,
    status: 'saved',
    archived: false,
    created_at: hit.updatedAt,
    updated_at: hit.updatedAt,
    message_count: 0,
    model: null,
    cwd: null,
    project_dir: null,
    pinned: false,
    agent: null,
  };
}
