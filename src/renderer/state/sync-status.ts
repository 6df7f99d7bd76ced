/**
 * The background sync's status line (docs/DESIGN.md#sync-through-a-hub): asked for once,
 * then kept current by the sync_status events every window hears, and asked for again
 * after the event stream was down (a status may have been missed).
 */
import { useEffect, useState } from 'react';
import type { LoomBridge, SyncStatus } from '../../shared/contract';

export function useSyncStatus(bridge: LoomBridge): SyncStatus | null {
  const [status, setStatus] = useState<SyncStatus | null>(null);
  useEffect(() => {
    let current = true;
    const fetchStatus = () =>
      bridge.invoke('sync.status', {}).then(
        (value) => current && setStatus(value),
        () => {}, // the next event brings it
      );
    void fetchStatus();
    const off = bridge.onEvent((event) => event.type === 'sync_status' && setStatus(event.status));
    const offReconnect = bridge.onReconnect(() => void fetchStatus());
    return () => {
      current = false;
      off();
      offReconnect();
    };
  }, [bridge]);
  return status;
}
