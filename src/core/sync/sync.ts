import type pg from 'pg';
import type { SessionStore } from '../store/session-store';
import { applyInbox, emptyCounts, waitingSessions, type ApplyCounts } from './apply';
import { checkHubSchema, connectHub, describeHub, explainHubError, type HubConfig } from './hub-connection';
import { deviceLabels, pullHub } from './pull';
import { pushOutbox } from './push';
import { ensureSyncOn, queuedChanges as queuedRows } from './sync-state';

export interface SyncProgress {
  phase: 'pull' | 'push';
  pushedMessages: number;
}

export interface SyncOptions {
  /** How other devices name this one (divergence notes, loom.devices). */
  deviceLabel: string;
  signal?: AbortSignal;
  onProgress?: (progress: SyncProgress) => void | Promise<void>;
  /** This process's engine is using the session (mid-turn): pulled changes for it wait in the inbox. */
  isBusy?: (sessionId: string) => boolean;
}

export interface SyncReport {
  /** The hub, as describeHub names it (no user, no password). */
  hub: string;
  pushedSessions: number;
  pushedMessages: number;
  pulledSessions: number;
  pulledMessages: number;
  /** Branches made from divergences. */
  branches: number;
  /** Sessions deleted here because they were deleted on another device. */
  deletes: number;
  /** Sessions whose pulled changes wait in the inbox (another process holds them). */
  waiting: string[];
  /** Teams a share was for that the user is not a member of on the hub: those shares were dropped. */
  refusedTeams: string[];
  /** Malformed rows from the hub that were skipped, each named (apply.ts). */
  skipped: string[];
}

/** Push attempts after divergences before giving up for this sync (each one pulls first). */
const DIVERGENCE_RETRIES = 3;

/**
 * One sync with the hub (docs/DESIGN.md#sync-through-a-hub): pull, push, and on a
 * divergence pull again (which branches the local rows off) and push again. Any hub
 * failure is one HubError line; local data is never touched by a failure (each local
 * step is its own transaction; what was not pushed stays queued).
 */
export async function syncOnce(store: SessionStore, hub: HubConfig, options: SyncOptions): Promise<SyncReport> {
  let client: pg.Client | undefined;
  try {
    client = await connectHub(hub);
    return await syncWith(client, store, hub, options);
  } catch (err) {
    throw options.signal?.aborted ? err : explainHubError(hub, err);
  } finally {
    await client?.end().catch(() => undefined);
  }
}

async function syncWith(client: pg.Client, store: SessionStore, hub: HubConfig, options: SyncOptions): Promise<SyncReport> {
  const { hubId } = await checkHubSchema(client);
  const state = ensureSyncOn(store.db, hub.url, hubId);
  const counts = emptyCounts();
  applyInbox(store, { deviceLabel: options.deviceLabel, labelOf: await deviceLabels(client), isBusy: options.isBusy }, counts);
  const pushed: Pushed = { sessions: new Set(), messages: 0, refusedTeams: new Set() };
  for (let attempt = 0; ; attempt++) {
    await options.onProgress?.({ phase: 'pull', pushedMessages: pushed.messages });
    await pullHub(client, store, { ...state, ...currentCursor(store) }, options, counts);
    const result = await pushOutbox(client, store.db, {
      deviceId: state.device_id,
      deviceLabel: options.deviceLabel,
      signal: options.signal,
      afterBatch: (messages) => options.onProgress?.({ phase: 'push', pushedMessages: pushed.messages + messages }),
    });
    for (const id of result.sessions) pushed.sessions.add(id);
    pushed.messages += result.messages;
    for (const team of result.refusedTeams) pushed.refusedTeams.add(team);
    if (!result.diverged || attempt >= DIVERGENCE_RETRIES) break;
  }
  return report(hub, pushed, counts, waitingSessions(store.db));
}

function currentCursor(store: SessionStore): { cursor: number } {
  return store.db.prepare('SELECT cursor FROM sync_state').get() as { cursor: number };
}

interface Pushed {
  sessions: Set<string>;
  messages: number;
  refusedTeams: Set<string>;
}

function report(hub: HubConfig, pushed: Pushed, counts: ApplyCounts, waiting: string[]): SyncReport {
  return {
    hub: describeHub(hub),
    pushedSessions: pushed.sessions.size,
    pushedMessages: pushed.messages,
    pulledSessions: counts.sessions.size,
    pulledMessages: counts.messages,
    branches: counts.branches,
    deletes: counts.deletes,
    waiting,
    refusedTeams: [...pushed.refusedTeams].sort(),
    skipped: counts.skipped,
  };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** `Synced with hub 127.0.0.1:5433/loom: pushed 3 sessions (41 messages), pulled 1 session (2 messages), 1 branch from a divergence, 1 delete.` */
export function describeSyncReport(r: SyncReport): string {
  const parts: string[] = [];
  if (r.pushedSessions || r.pushedMessages) parts.push(`pushed ${plural(r.pushedSessions, 'session')} (${plural(r.pushedMessages, 'message')})`);
  if (r.pulledSessions || r.pulledMessages) parts.push(`pulled ${plural(r.pulledSessions, 'session')} (${plural(r.pulledMessages, 'message')})`);
  if (r.branches) parts.push(`${plural(r.branches, 'branch', 'branches')} from a divergence`);
  if (r.deletes) parts.push(plural(r.deletes, 'delete'));
  if (r.waiting.length) parts.push(`${plural(r.waiting.length, 'session')} in use elsewhere, to be applied on a later sync`);
  for (const team of r.refusedTeams) parts.push(`not shared with team ${team} (you are not a member of it on the hub)`);
  if (r.skipped.length) parts.push(skippedPart(r.skipped));
  return `Synced with hub ${r.hub}: ${parts.length ? parts.join(', ') : 'nothing to do'}.`;
}

/** Named rows, the first few of them: the line stays one line however many a teammate damaged. */
const SKIPPED_NAMED = 3;

function skippedPart(skipped: string[]): string {
  const more = skipped.length - SKIPPED_NAMED;
  const named = skipped.slice(0, SKIPPED_NAMED).join('; ') + (more > 0 ? `; and ${more} more` : '');
  return `skipped ${plural(skipped.length, 'malformed row')} from the hub (${named})`;
}

/** Changes saved on this device and not yet on the hub (for status lines). */
export function queuedChanges(store: SessionStore): number {
  return queuedRows(store.db);
}
