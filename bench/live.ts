/**
 * Live everywhere (docs/DESIGN.md#live-everywhere): what watching for other processes' changes costs a
 * backend, and how long a change made by another connection takes to reach its listeners,
 * in a data folder of 10,000 sessions.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULTS, type LoomConfig } from '../src/core/config';
import { LoomEngine } from '../src/core/engine';
import { ChangeWatcher } from '../src/core/store/change-watcher';
import { SessionStore } from '../src/core/store/session-store';
import { formatMs, percentile, printTable, progress, sample, type BenchSection } from './harness';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 10_000);
const RUNS = 20;
const TARGETS = { quietPollMs: 0.1, changedPollMs: 50, latencyMs: 1000 };

export const liveSection: BenchSection = {
  name: "Live updates: other processes' changes reaching a backend",
  run: runLiveBench,
};

async function runLiveBench(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-live-'));
  const backendStore = SessionStore.open(dataDir);
  const other = SessionStore.open(dataDir); // another connection: what `loom` would be
  try {
    progress(`live: ${SESSIONS} sessions`);
    const ids = backendStore.db.transaction(() => Array.from({ length: SESSIONS }, (_, i) => backendStore.create({ title: `session ${i}` }).id))();

    const watcher = new ChangeWatcher(backendStore);
    const quiet = sample(() => watcher.poll(), 200, 5);
    const changed = sample(
      (run) => {
        other.rename(ids[Math.abs(run) % ids.length], `renamed ${run}`);
        return watcher.poll();
      },
      RUNS,
      2,
    );

    const engine = new LoomEngine({ config: { ...DEFAULTS, dataDir, apiKey: '' } as LoomConfig, store: backendStore, projectDir: dataDir });
    const stop = engine.watchOtherProcesses();
    const keepAlive = setInterval(() => {}, 1_000); // the watcher's timer is unref'd: a backend's server keeps it running
    const latencies: number[] = [];
    try {
      for (let run = 0; run < RUNS; run++) {
        const id = ids[run];
        const heard = new Promise<number>((resolve) => {
          const off = engine.on((event) => {
            if (event.type === 'session_changed' && event.sessionId === id) {
              off();
              resolve(Date.now());
            }
          });
        });
        const start = Date.now();
        other.rename(id, `live ${run}`);
        latencies.push((await heard) - start);
      }
    } finally {
      clearInterval(keepAlive);
      stop();
    }
    latencies.sort((a, b) => a - b);
    const row = (name: string, p50: number, p99: number, target: number) => [
      name,
      formatMs(p50),
      formatMs(p99),
      `< ${formatMs(target)}`,
      p99 < target ? 'yes' : 'NO',
    ];
    printTable(
      `Live updates (${SESSIONS.toLocaleString('en-US')} sessions, poll every 300 ms)`,
      ['operation', 'p50', 'p99', 'target', 'met'],
      [
        row('poll, nothing changed (PRAGMA data_version)', quiet.p50, quiet.p99, TARGETS.quietPollMs),
        row('poll after another connection renamed one', changed.p50, changed.p99, TARGETS.changedPollMs),
        row('rename elsewhere -> event to the windows', percentile(latencies, 50), percentile(latencies, 99), TARGETS.latencyMs),
      ],
    );
  } finally {
    other.close();
    backendStore.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
