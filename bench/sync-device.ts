/**
 * The device side of sync (docs/DESIGN.md#sync-through-a-hub), two rows of bench/sync.ts: the first sync of the bench store (10,000 sessions × 40 messages, as
 * bench/store.ts builds it) to the hub, and one new message from device A's append to
 * device B's store, B listening (live.ts) and syncing on each NOTIFY. Each user here is
 * the bench's own, so the rows do not depend on what other rows put on the hub.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SessionStore } from '../src/core/store/session-store';
import { parseHubUrl, type HubConfig } from '../src/core/sync/hub-connection';
import { listenForHubChanges } from '../src/core/sync/live';
import { syncOnce } from '../src/core/sync/sync';
import type { TestCluster } from '../test/support/postgres';
import { formatMs, percentile, progress } from './harness';
import type { HubBenchResult } from './sync';
import { Corpus } from './store-corpus';

/** BENCH_SESSIONS scales the store down for a quick look; the target assumes 10,000. */
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 10_000);
const MESSAGES_PER_SESSION = 40;
const SEED_BATCH = 250;
const FIRST_SYNC_TARGET = 5_000;
const LIVE_RUNS = 20;
const LIVE_TARGET_MS = 1_000;

function tempStore(label: string): { store: SessionStore; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `loom-bench-${label}-`));
  const store = SessionStore.open(dir);
  return {
    store,
    remove: () => {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function benchUser(cluster: TestCluster, name: string): Promise<HubConfig> {
  const password = `${name}-bench-pw`;
  await cluster.createUser(name, password);
  return parseHubUrl(cluster.url(name, password));
}

/** ≥ 5,000 messages/s for the first sync of the 10,000-session bench store. */
export async function firstSyncRows(cluster: TestCluster): Promise<HubBenchResult[]> {
  const hub = await benchUser(cluster, 'bench_first_sync');
  const { store, remove } = tempStore('first-sync');
  try {
    const corpus = new Corpus(42);
    for (let start = 0; start < SESSIONS; start += SEED_BATCH) {
      store.batch(() => {
        for (let i = start; i < Math.min(SESSIONS, start + SEED_BATCH); i++) {
          const { id } = store.create({ model: 'gemma4', title: i % 3 === 0 ? corpus.sentence() : null, messages: corpus.session(MESSAGES_PER_SESSION) });
          store.setSummary(id, corpus.sentence());
          store.recordUsage(id, 'chat', { prompt_tokens: corpus.int(1000, 20000), completion_tokens: corpus.int(100, 3000), cost_usd: 0 });
        }
      });
    }
    // The store's idle maintenance indexes them for search: done now, not during the timed sync.
    store.updateSearchIndex();
    progress(`first sync: ${SESSIONS.toLocaleString('en-US')} sessions seeded`);
    const started = performance.now();
    const report = await syncOnce(store, hub, { deviceLabel: 'bench' });
    const seconds = (performance.now() - started) / 1000;
    const rate = report.pushedMessages / seconds;
    return [
      {
        row: `first sync of the ${SESSIONS.toLocaleString('en-US')}-session bench store to the hub`,
        measured: `${Math.round(rate).toLocaleString('en-US')} messages/s (${report.pushedMessages.toLocaleString('en-US')} in ${seconds.toFixed(1)} s)`,
        target: `≥ ${FIRST_SYNC_TARGET.toLocaleString('en-US')} messages/s`,
        met: rate >= FIRST_SYNC_TARGET,
      },
    ];
  } finally {
    remove();
  }
}

/** ≤ 1 s from an append on device A to the message in device B's store, B syncing on NOTIFY. */
export async function liveLatencyRows(cluster: TestCluster): Promise<HubBenchResult[]> {
  const hub = await benchUser(cluster, 'bench_live');
  const a = tempStore('live-a');
  const b = tempStore('live-b');
  try {
    const session = a.store.create({ title: 'live' });
    await syncOnce(a.store, hub, { deviceLabel: 'device A' });
    await syncOnce(b.store, hub, { deviceLabel: 'device B' });
    const arrived = new Map<number, () => void>();
    const bSyncs = serialSyncs(b.store, hub, () => {
      const count = b.store.getMeta(session.id).message_count;
      for (const [n, done] of arrived) if (count >= n) done();
    });
    const listener = await listenForHubChanges(hub, bSyncs);
    const times: number[] = [];
    try {
      for (let run = 1; run <= LIVE_RUNS; run++) {
        const there = new Promise<void>((resolve) => arrived.set(run, resolve));
        const start = performance.now();
        a.store.appendMessage(session.id, { role: 'user', content: `message ${run}` });
        await syncOnce(a.store, hub, { deviceLabel: 'device A' });
        await there;
        times.push(performance.now() - start);
        arrived.delete(run);
      }
    } finally {
      await listener.close();
    }
    times.sort((x, y) => x - y);
    const p99 = percentile(times, 99);
    return [
      {
        row: "one new message, from device A's append to device B's store (NOTIFY, then B syncs)",
        measured: `p50 ${formatMs(percentile(times, 50))}, p99 ${formatMs(p99)} over ${LIVE_RUNS} appends`,
        target: `≤ ${formatMs(LIVE_TARGET_MS)}`,
        met: p99 <= LIVE_TARGET_MS,
      },
    ];
  } finally {
    a.remove();
    b.remove();
  }
}

/** One sync at a time: a NOTIFY during a sync runs one more after it. */
function serialSyncs(store: SessionStore, hub: HubConfig, afterEach: () => void): () => void {
  let running = false;
  let again = false;
  const run = async (): Promise<void> => {
    running = true;
    do {
      again = false;
      await syncOnce(store, hub, { deviceLabel: 'device B' });
      afterEach();
    } while (again);
    running = false;
  };
  return () => {
    if (running) again = true;
    else void run();
  };
}
