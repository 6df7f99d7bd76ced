/** The sync's one line ("Synced 10:42", "Hub unreachable (…): 3 changes queued"); nothing when sync is off. */
import type { SyncStatus } from '../../shared/contract';

export function SyncStatusLine({ status, className }: { status: SyncStatus | null; className?: string }) {
  if (!status || status.state === 'off') return null;
  return (
    <p className={`sync-status sync-${status.state} ${className ?? ''}`} role="status" aria-label="Sync status" title={status.line}>
      {status.line}
    </p>
  );
}
