/**
 * What windows see of the sync through a hub (docs/DESIGN.md#sync-through-a-hub): the
 * background sync's one-line status, a share's answer, team search hits. Plain data, so it
 * crosses IPC and SSE unchanged.
 */
import type { SearchHit } from './types';

export type SyncState = 'off' | 'syncing' | 'synced' | 'offline' | 'error';

export interface SyncStatus {
  /** off: no hub is set; offline: the hub cannot be reached (retried); error: it answered with a refusal to fix. */
  state: SyncState;
  /** What to show, e.g. "Synced 10:42" or "Hub unreachable (connection refused): 12 changes queued". */
  line: string;
  /** Local changes not yet on the hub. */
  queued: number;
  /** When the last sync ended well (ISO time). */
  lastSyncAt?: string;
}

/** Pushed to every window whenever the status changes. */
export interface SyncStatusEvent {
  type: 'sync_status';
  status: SyncStatus;
}

/** What sessions.share answers: one line for the user. */
export interface ShareResult {
  line: string;
}

export const SEARCH_SCOPES = ['local', 'team'] as const;
export type SearchScope = (typeof SEARCH_SCOPES)[number];

/**
 * A search hit; from the team scope it also says whose session it is and whether it is on
 * this device yet (a shared session arrives with the next sync). A hit not synced yet
 * carries what the hub knows: id, title and time.
 */
export type SessionSearchHit = SearchHit & { team?: { owner: string; synced: boolean } };
