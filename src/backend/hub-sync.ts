/**
 * The SyncService's HubSync over core/sync: the sync runs on a store connection of its own,
 * opened at the first sync (a data folder without a hub opens nothing more), so the engine's
 * change watcher sees what a pull applied as another connection's commit and tells every
 * window (docs/DESIGN.md#live-everywhere).
 */
import os from 'node:os';
import { isLoomError } from '../core/errors';
import type { SessionStore } from '../core/store/session-store';
import { parseHubUrl } from '../core/sync/hub-connection';
import { listenForHubChanges } from '../core/sync/live';
import { shareSession } from '../core/sync/share';
import { queuedChanges, syncOnce } from '../core/sync/sync';
import { searchHub } from '../core/sync/team-search';
import type { HubSync } from './sync-service';

export function openHubSync(dataDir: string, openStore: (dataDir: string) => SessionStore): HubSync {
  let store: SessionStore | null = null;
  const own = () => (store ??= openStore(dataDir));
  return {
    check: (url) => void parseHubUrl(url),
    sync: async (url, signal) => {
      await syncOnce(own(), parseHubUrl(url), { deviceLabel: os.hostname(), signal });
    },
    unreachable: unreachableReason,
    queued: () => queuedChanges(own()),
    listen: (url, onChange) => listenForHubChanges(parseHubUrl(url), onChange),
    share: (sessionId, team) => shareSession(own(), sessionId, team),
    search: (url, query, options) => searchHub(parseHubUrl(url), query, options),
    close: () => store?.close(),
  };
}

/** Network failures are waited out; anything else (a refused password, a newer hub schema) is for the user to fix. */
function unreachableReason(err: unknown): string | null {
  const code = isLoomError(err) ? err.code : (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? (UNREACHABLE[code] ?? null) : null;
}

const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection lost',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
};
