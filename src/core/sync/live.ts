import type pg from 'pg';
import { connectHub, type HubConfig } from './hub-connection';

/** Waits between reconnection attempts, growing to the last one while the hub stays away. */
const RECONNECT_DELAYS_MS = [250, 1_000, 5_000, 15_000];

/**
 * Calls `onChange` whenever a push commits on the hub (docs/DESIGN.md#sync-through-a-hub:
 * pushes NOTIFY loom_changes with their hub_seq, which says nothing private). A dropped
 * connection is opened again, with backoff, and `onChange` is called once it is back
 * (changes may have been missed meanwhile). The first connection's failure is thrown.
 */
export async function listenForHubChanges(hub: HubConfig, onChange: () => void): Promise<{ close(): Promise<void> }> {
  let closed = false;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;

  const open = async (): Promise<void> => {
    const next = await connectHub(hub);
    if (closed) {
      await next.end().catch(() => undefined);
      return;
    }
    next.on('notification', (message: pg.Notification) => {
      if (message.channel === 'loom_changes') onChange();
    });
    next.on('error', () => reconnect(next));
    next.on('end', () => reconnect(next));
    await next.query('LISTEN loom_changes');
    client = next;
    failures = 0;
  };

  const reconnect = (from: pg.Client): void => {
    if (closed || client !== from) return;
    client = undefined;
    from.removeAllListeners('end');
    void from.end().catch(() => undefined);
    schedule();
  };

  const schedule = (): void => {
    const delay = RECONNECT_DELAYS_MS[Math.min(failures, RECONNECT_DELAYS_MS.length - 1)];
    failures += 1;
    timer = setTimeout(() => {
      open().then(
        () => !closed && onChange(),
        () => !closed && schedule(),
      );
    }, delay);
    timer.unref();
  };

  await open();
  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      await client?.end().catch(() => undefined);
    },
  };
}
