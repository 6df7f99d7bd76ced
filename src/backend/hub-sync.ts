/**
 * The SyncService's HubSync over core/sync: the sync runs on a store connection of its own,
 * opened at the first sync (a data folder without a hub opens nothing more), so the engine's
 * change watcher sees what a pull applied as another connection's commit and tells every
 * window (docs/DESIGN.md#live-everywhere). The modules that talk to the hub (they load `pg`)
 * are loaded at the first sync too: an app without a hub never loads them.
 */
import os from 'node:os';
import { isLoomError } from '../core/errors';
import type { SessionStore } from '../core/store/session-store';
import type { HubError } from '../core/sync/hub-connection';
import { parseHubUrl } from '../core/sync/hub-url';
import { shareSession } from '../core/sync/share';
import { queuedChanges } from '../core/sync/sync-state';
import type { HubSync } from './sync-service';

const network = () => Promise.all([import('../core/sync/sync'), import('../core/sync/live'), import('../core/sync/team-search')]);

/** `isBusy`: the engine is mid-turn in the session; what a pull brings for it waits for a later sync. */
export function openHubSync(dataDir: string, openStore: (dataDir: string) => SessionStore, isBusy: (sessionId: string) => boolean): HubSync {
  let store: SessionStore | null = null;
  const own = () => (store ??= openStore(dataDir));
  return {
    check: (url) => void parseHubUrl(url),
    sync: async (url, signal) => {
      const [{ syncOnce }] = await network();
      return syncOnce(own(), parseHubUrl(url), { deviceLabel: os.hostname(), signal, isBusy });
    },
    // Network failures are waited out; anything else (a refused password, a newer hub schema) is for the user to fix.
    unreachable: (err) => (isHubError(err) && err.unreachable ? err.failure : null),
    queued: () => queuedChanges(own().db),
    listen: async (url, onChange) => {
      const [, { listenForHubChanges }] = await network();
      return listenForHubChanges(parseHubUrl(url), onChange);
    },
    share: (sessionId, team) => shareSession(own(), sessionId, team),
    search: async (url, query, options) => {
      const [, , { searchHub }] = await network();
      return searchHub(parseHubUrl(url), query, options);
    },
    close: () => store?.close(),
  };
}

/** core/sync's HubError, told by its code (its module is only loaded with the network half). */
function isHubError(err: unknown): err is HubError {
  return isLoomError(err) && err.code === 'hub';
}
