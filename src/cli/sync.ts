/**
 * `loom --sync [--hub URL]` and `loom --share ID TEAM` (docs/DESIGN.md#sync-through-a-hub).
 * Loaded only for them, so `pg` stays out of every other command. A hub failure is one
 * HubError line without the password (exit 1); what was not pushed stays queued.
 */
import os from 'node:os';
import type { LoomConfig } from '../core/config';
import { LoomError } from '../core/errors';
import { SessionStore } from '../core/store/session-store';
import { describeHub, type HubConfig } from '../core/sync/hub-connection';
import { shareSession } from '../core/sync/share';
import { describeSyncReport, syncOnce, type SyncProgress } from '../core/sync/sync';
import type { SyncAction } from './options';
import { writeError, writeOut } from './output';

/** Test-only (docs/DESIGN.md#sync-through-a-hub): stop after this many pushed batches and wait, so a test can kill -9 mid-sync. */
const PAUSE_ENV = 'LOOM_SYNC_PAUSE_AFTER_BATCHES';

export async function runSyncCommand(action: SyncAction, config: LoomConfig): Promise<number> {
  const store = SessionStore.open(config.dataDir);
  try {
    if (action.kind === 'share') {
      shareSession(store, action.id, action.team);
      if (!action.hub) {
        await writeOut(`Queued: session ${store.resolveId(action.id)} will be shared with team ${action.team} at the next sync.\n`);
        return 0;
      }
    }
    const hub = action.hub as HubConfig;
    const report = await syncOnce(store, hub, { deviceLabel: deviceLabel(), onProgress: pauseForTests() });
    await writeOut(`${describeSyncReport(report)}\n`);
    if (action.kind !== 'share') return 0;
    if (report.refusedTeams.includes(action.team))
      throw new LoomError(`You are not a member of team ${action.team} on the hub ${describeHub(hub)}: not shared.`, 'not_shared');
    await writeOut(`Shared with team ${action.team} on the hub ${describeHub(hub)}.\n`);
    return 0;
  } finally {
    store.close();
  }
}

/** How other devices name this one: LOOM_DEVICE_NAME, else the host name. */
function deviceLabel(): string {
  return process.env.LOOM_DEVICE_NAME?.trim() || os.hostname();
}

function pauseForTests(): ((progress: SyncProgress) => Promise<void>) | undefined {
  const after = Number(process.env[PAUSE_ENV]);
  if (!Number.isInteger(after) || after < 1) return undefined;
  let batches = 0;
  return async (progress) => {
    if (progress.phase !== 'push' || ++batches < after) return;
    writeError(`sync paused after ${batches} pushed batches (${PAUSE_ENV})`);
    await new Promise(() => setInterval(() => undefined, 60_000));
  };
}
