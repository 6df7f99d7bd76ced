/**
 * The SyncService's HubSync over core/sync: the sync runs on a store connection of its own,
 * opened at the first sync (a data folder without a hub opens nothing more), so the engine's
 * change watcher sees what a pull applied as another connection's commit and tells every
 * window (docs/DESIGN.md#live-everywhere).
 */
import os from 'node:os';
import type { SessionStore } from '../core/store/session-store';
import { HubError, parseHubUrl } from '../core/sync/hub-connection';
import { listenForHubChanges } from '../core/sync/live';
import { shareSession } from '../core/sync/share';
import { queuedChanges, syncOnce } from '../core/sync/sync';
import { searchHub } from '../core/sync/team-search';
import type { HubSync } from './sync-service';

/** `isBusy`: the engine is mid-turn in the session; what a pull brings for it waits for a later sync. */
export function openHubSync(dataDir: string, openStore: (dataDir: string) => SessionStore, isBusy: (sessionId: string) => boolean): HubSync {
  let store: SessionStore | null = null;
  const own = () => (store ??= openStore(dataDir));
  return {
    check: (url) => void parseHubUrl(url),
    sync: async (url, signal) => {
      await syncOnce(own(), parseHubUrl(url), { deviceLabel: os.hostname(), signal, isBusy });
    },
    // Network failures are waited out; anything else (a refused password, a newer hub schema) is for the user to fix.
    unreachable: (err) => (err instanceof HubError && err.unreachable ? err.failure : null),
    queued: () => queuedChanges(own()),
    listen: (url, onChange) => listenForHubChanges(parseHubUrl(url), onChange),
    share: (sessionId, team) => shareSession(own(), sessionId, team),
    search: (url, query, options) => searchHub(parseHubUrl(url), query, options),
    close: () => store?.close(),
  };
}
