/**
 * The settings dialog's "Sync hub": the hub's URL (its password shown as ***), the sync's
 * status line, and Sync now (docs/DESIGN.md#sync-through-a-hub). The URL is saved with
 * the dialog; Sync now syncs with the saved hub.
 */
import { useState } from 'react';
import type { SyncStatus } from '../../shared/contract';
import { useBridge } from '../bridge/context';
import { SyncStatusLine } from './SyncStatusLine';
import { errorMessage } from '../lib/errors';

export function SyncHubSection({ hubUrl, onHubUrl, status }: { hubUrl: string; onHubUrl: (url: string) => void; status: SyncStatus | null }) {
  const bridge = useBridge();
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const syncNow = async () => {
    setRunning(true);
    setError(null);
    try {
      await bridge.invoke('sync.now', {}); // its status arrives as an event
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setRunning(false);
    }
  };
  const on = status !== null && status.state !== 'off';

  return (
    <section className="sync-hub" aria-labelledby="sync-hub-title">
      <h3 id="sync-hub-title">Sync hub</h3>
      <label className="field">
        <span>Hub URL (PostgreSQL; empty: sync off)</span>
        <input
          value={hubUrl}
          onChange={(e) => onHubUrl(e.target.value)}
          placeholder="postgres://alice@hub.example.com/loom"
          spellCheck={false}
          autoComplete="off"
        />
      </label>
      <p className="hint">
        Sessions, their messages and deletes sync through it, the secrets in them redacted; settings, API keys and audit logs never leave this device.
      </p>
      <div className="connection-test">
        <button type="button" onClick={() => void syncNow()} disabled={!on || running}>
          {running ? 'Syncing…' : 'Sync now'}
        </button>
        <SyncStatusLine status={status} className="connection-result" />
        {error && <p role="alert">{error}</p>}
      </div>
    </section>
  );
}
