/**
 * The app's background sync (docs/DESIGN.md#background-sync-in-the-app) end to end, on a
 * throw-away cluster: two backends as two devices of one user, each with its SyncService;
 * a rename through device A's handlers until device B's windows hear the session_changed
 * event (A's debounce and push, the hub's NOTIFY, B's debounce and pull, B's change watcher).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openBackend, type Backend } from '../src/backend/backend';
import { JsonFileSettingsStore } from '../src/backend/settings-store';
import { parseHubUrl } from '../src/core/sync/hub-connection';
import { initHub } from '../src/core/sync/hub-init';
import { startTestCluster } from '../test/support/postgres';
import { formatMs, percentile, printTable, type BenchSection } from './harness';

const RUNS = 20;
const TARGET_MS = 1_000;

export const syncAppSection: BenchSection = {
  name: "Sync in the app: another device's change reaching the windows",
  run: runSyncAppBench,
};

async function runSyncAppBench(): Promise<void> {
  const cluster = await startTestCluster();
  const dirs: string[] = [];
  const backends: Backend[] = [];
  const device = (hubUrl: string) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-sync-app-'));
    dirs.push(dataDir);
    const settingsStore = new JsonFileSettingsStore(dataDir);
    settingsStore.save({ hubUrl });
    const backend = openBackend({ dataDir, settingsStore, shell: 'browser', projectDir: dataDir, env: {} });
    backends.push(backend);
    return backend;
  };
  try {
    await initHub(parseHubUrl(cluster.ownerUrl));
    await cluster.createUser('bench_app', 'bench-app-pw');
    const hubUrl = cluster.url('bench_app', 'bench-app-pw');
    const a = device(hubUrl);
    const b = device(hubUrl);
    const session = await a.handlers['chat.create']({});
    await a.sync.syncNow();
    await b.sync.syncNow();
    const times: number[] = [];
    for (let run = 1; run <= RUNS; run++) {
      const title = `renamed on device A, ${run}`;
      const heard = new Promise<number>((resolve) => {
        const off = b.subscribe((event) => {
          if (event.type !== 'session_changed' || event.meta.title !== title) return;
          off();
          resolve(performance.now());
        });
      });
      const start = performance.now();
      await a.handlers['sessions.rename']({ id: session.id, title });
      times.push((await heard) - start);
    }
    times.sort((x, y) => x - y);
    const p99 = percentile(times, 99);
    printTable(
      'Sync in the app',
      ['row', 'measured', 'target', 'met'],
      [
        [
          "a rename on device A until device B's windows hear it (debounce, push, NOTIFY, pull, change watcher)",
          `p50 ${formatMs(percentile(times, 50))}, p99 ${formatMs(p99)} over ${RUNS} renames`,
          `≤ ${formatMs(TARGET_MS)}`,
          p99 <= TARGET_MS ? 'yes' : 'NO',
        ],
      ],
    );
  } finally {
    await Promise.all(backends.map((backend) => backend.close()));
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    await cluster.destroy();
  }
}
