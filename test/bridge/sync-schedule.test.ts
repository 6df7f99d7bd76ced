/**
 * When the background sync syncs (docs/DESIGN.md#background-sync-in-the-app), and how it
 * answers a team search, decided by SyncService alone: these drive it through a HubSync that records its calls and answers as
 * told, on Vitest's clock, so each pause is exact. What a sync does with a real hub is
 * sync-service.test.ts's.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SyncService, type HubSync } from '../../src/backend/sync-service';
import { HubError } from '../../src/core/sync/hub-connection';
import type { SessionMeta } from '../../src/shared/types';

const URL = 'postgres://dana:pw-dana-31@127.0.0.1:5433/loom';
const TIMING = { debounceMs: 100, retryFirstMs: 1000, retryMaxMs: 4000, pollMs: 60_000 };

/** A hub that records each sync and fails it while `failure` is set; `announce` is what its NOTIFY listener calls. */
function scriptedHub() {
  const hub = {
    syncs: 0,
    running: 0,
    maxRunning: 0,
    queued: 0,
    failure: null as Error | null,
    skipped: [] as string[],
    announce: () => {},
    urls: [] as string[],
    listenersClosed: 0,
  };
  const port: HubSync = {
    check: () => {},
    sync: async (url) => {
      hub.syncs += 1;
      hub.urls.push(url);
      hub.running += 1;
      hub.maxRunning = Math.max(hub.maxRunning, hub.running);
      try {
        await Promise.resolve();
        if (hub.failure) throw hub.failure;
        hub.queued = 0;
        return { refusedTeams: [], skipped: hub.skipped };
      } finally {
        hub.running -= 1;
      }
    },
    unreachable: (err) => (err instanceof HubError && err.unreachable ? err.failure : null),
    queued: () => hub.queued,
    listen: (_url, onChange) => {
      hub.announce = onChange;
      return Promise.resolve({
        close: () => {
          hub.listenersClosed += 1;
          return Promise.resolve();
        },
      });
    },
    share: () => {},
    search: () =>
      Promise.resolve([
        { sessionId: 'here-1', title: 'On the hub', owner: 'erin', snippet: 'the [match]', updatedAt: '2026-11-30T10:00:00.000Z' },
        { sessionId: 'not-here-2', title: 'Shared since', owner: 'erin', snippet: 'a [match]', updatedAt: '2026-11-30T11:00:00.000Z' },
      ]),
    close: () => {},
  };
  return { hub, port };
}

let service: SyncService;
beforeEach(() => vi.useFakeTimers());
afterEach(async () => {
  await service.close();
  vi.useRealTimers();
});

const LOCAL: SessionMeta = {
  id: 'here-1',
  parent_id: null,
  title: 'Renamed here',
  summary: null,
  status: 'saved',
  archived: false,
  created_at: '2026-11-29T09:00:00.000Z',
  updated_at: '2026-11-30T12:00:00.000Z',
  message_count: 4,
  model: null,
  cwd: null,
  project_dir: null,
  pinned: false,
  agent: null,
};

async function started() {
  const scripted = scriptedHub();
  service = new SyncService(scripted.port, URL, (id) => (id === LOCAL.id ? LOCAL : null), TIMING);
  service.start();
  await vi.advanceTimersByTimeAsync(0);
  expect(service.status().state).toBe('synced');
  // The listener, once up, syncs once more: a push between the first pull and its LISTEN was announced to nobody.
  await vi.advanceTimersByTimeAsync(TIMING.debounceMs);
  expect(scripted.hub.syncs).toBe(2);
  scripted.hub.syncs = 0;
  return scripted.hub;
}

describe('the background sync decides', () => {
  it('to sync on an announcement even when a local change without anything queued comes within the same pause', async () => {
    const hub = await started();
    hub.announce();
    service.localChange(); // the change watcher's event for a pull: nothing to push
    await vi.advanceTimersByTimeAsync(TIMING.debounceMs);
    expect(hub.syncs).toBe(1);
  });

  it('not to sync for local changes that queued nothing, and to sync once for several that did', async () => {
    const hub = await started();
    service.localChange();
    await vi.advanceTimersByTimeAsync(TIMING.debounceMs);
    expect(hub.syncs).toBe(0);
    hub.queued = 3;
    service.localChange();
    await vi.advanceTimersByTimeAsync(TIMING.debounceMs / 2);
    service.localChange();
    await vi.advanceTimersByTimeAsync(TIMING.debounceMs);
    expect(hub.syncs).toBe(1);
  });

  it('to sync once for a flood of announcements (any member may NOTIFY every device), never two syncs at once', async () => {
    const hub = await started();
    for (let pause = 0; pause < 5; pause++) {
      for (let i = 0; i < 1000; i++) hub.announce();
      await vi.advanceTimersByTimeAsync(TIMING.debounceMs);
    }
    expect(hub.syncs).toBe(5); // one per debounce pause, whatever the number of announcements in it
    expect(hub.maxRunning).toBe(1);
  });

  it("to say on the status line that a teammate's malformed rows were skipped, naming the first", async () => {
    const hub = await started();
    hub.skipped = ['message 2 of session 1234: its role "wizard" is not one Loom knows', 'message 3 of session 1234: its content is not a text'];
    await service.syncNow();
    expect(service.status().state).toBe('synced');
    expect(service.status().line).toMatch(
      /^Synced \d\d:\d\d; skipped 2 malformed rows from the hub \(message 2 of session 1234: its role "wizard" is not one Loom knows; …\)$/,
    );
    hub.skipped = [];
    await service.syncNow();
    expect(service.status().line).toMatch(/^Synced \d\d:\d\d$/);
  });

  it("to wait out a hub held up by another role's lock, retrying as for an unreachable hub", async () => {
    const hub = await started();
    hub.failure = new HubError('The hub at postgres://dana@127.0.0.1:5433/loom is busy: another connection held a lock Loom needs for more than 10 s.', 'busy');
    await service.syncNow();
    expect(service.status()).toMatchObject({ state: 'offline', line: 'Hub busy (another connection holds a lock): nothing queued' });
    hub.failure = null;
    await vi.advanceTimersByTimeAsync(TIMING.retryFirstMs);
    expect(service.status().state).toBe('synced');
  });

  it('one sync at a time: asked during one, it runs once more after it', async () => {
    const hub = await started();
    const first = service.syncNow();
    const second = service.syncNow();
    const third = service.syncNow();
    await Promise.all([first, second, third]);
    expect(hub.maxRunning).toBe(1);
    expect(hub.syncs).toBe(2); // the first Sync now, and one more for the two asked meanwhile
  });

  it('to retry an unreachable hub after 1 s, 2 s, 4 s, 4 s, counting the changes queued meanwhile without asking it', async () => {
    const hub = await started();
    hub.failure = new HubError(`Hub unreachable at ${URL} (connection refused).`, 'connection refused');
    hub.queued = 1;
    service.localChange();
    await vi.advanceTimersByTimeAsync(TIMING.debounceMs);
    expect(hub.syncs).toBe(1);
    expect(service.status()).toMatchObject({ state: 'offline', line: 'Hub unreachable (connection refused): 1 change queued', queued: 1 });

    hub.queued = 4;
    service.localChange();
    await vi.advanceTimersByTimeAsync(TIMING.debounceMs);
    expect(hub.syncs).toBe(1);
    expect(service.status().line).toBe('Hub unreachable (connection refused): 4 changes queued');

    const attemptsAt = async (ms: number, syncs: number) => {
      await vi.advanceTimersByTimeAsync(ms - 1);
      expect(hub.syncs).toBe(syncs - 1);
      await vi.advanceTimersByTimeAsync(1);
      expect(hub.syncs).toBe(syncs);
    };
    await attemptsAt(1000 - TIMING.debounceMs, 2);
    await attemptsAt(2000, 3);
    await attemptsAt(4000, 4);
    await attemptsAt(4000, 5);

    // The listener says the hub is back: no waiting for the next retry.
    hub.failure = null;
    hub.announce();
    await vi.advanceTimersByTimeAsync(TIMING.debounceMs);
    expect(hub.syncs).toBe(6);
    expect(service.status()).toMatchObject({ state: 'synced', queued: 0 });
  });

  it('to wait for the poll, not retry fast, when the hub refused (a wrong password), and never to show the password', async () => {
    const hub = await started();
    hub.failure = new Error('role "dana" failed with password pw-dana-31');
    await service.syncNow();
    expect(service.status().state).toBe('error');
    expect(service.status().line).not.toContain('pw-dana-31');
    await vi.advanceTimersByTimeAsync(TIMING.pollMs - 1);
    expect(hub.syncs).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(hub.syncs).toBe(2);
  });
});

describe('another hub set in Settings', () => {
  it("stops listening to the old one, shows no line of the old one's, and syncs with the new one; none turns sync off", async () => {
    const hub = await started();
    const statuses: string[] = [];
    service.onStatus((status) => statuses.push(`${status.state}: ${status.line}`));
    const other = 'postgres://dana@127.0.0.1:5434/loom';
    await service.configure(other);
    await vi.advanceTimersByTimeAsync(0);
    expect(hub.listenersClosed).toBe(1);
    expect(hub.urls.at(-1)).toBe(other);
    expect(statuses.slice(0, 2)).toEqual(['syncing: Syncing…', 'syncing: Syncing…']);
    expect(service.status().state).toBe('synced');
    await service.configure(null);
    expect(service.status()).toEqual({ state: 'off', line: 'Sync is off: no hub is set.', queued: 0 });
  });
});

describe('a team search', () => {
  it("answers a hit on this device with its local metadata, and one not here yet with the hub's title and time, marked so", async () => {
    await started();
    const [here, notHere] = await service.searchTeam('match', { limit: 50, offset: 0 });
    expect(here).toEqual({ ...LOCAL, snippet: 'the [match]', message_index: null, team: { owner: 'erin', synced: true } });
    expect(notHere).toMatchObject({
      id: 'not-here-2',
      title: 'Shared since',
      updated_at: '2026-11-30T11:00:00.000Z',
      message_count: 0,
      team: { owner: 'erin', synced: false },
    });
  });
});
