/**
 * The Trash (docs/DESIGN.md#trash): deleted sessions, when each was deleted and when it will
 * be purged; Restore brings one back, Purge deletes it for good after a confirmation.
 */
import { useCallback, useEffect, useState } from 'react';
import type { TrashedSession } from '../../shared/types';
import { useBridge } from '../bridge/context';
import { sessionLabel } from '../lib/format';
import { Dialog } from './Dialog';

interface TrashDialogProps {
  onClose: () => void;
  /** Runs a user action; a failure becomes a banner. */
  attempt: <T>(action: () => Promise<T>) => Promise<T | undefined>;
}

const when = (iso: string) => new Date(iso).toLocaleString();

export function TrashDialog({ onClose, attempt }: TrashDialogProps) {
  const bridge = useBridge();
  const [trashed, setTrashed] = useState<TrashedSession[] | null>(null);
  const [purging, setPurging] = useState<TrashedSession | null>(null);
  const load = useCallback(async () => setTrashed((await attempt(() => bridge.invoke('sessions.trash', {}))) ?? []), [attempt, bridge]);
  useEffect(() => void load(), [load]);

  if (purging) {
    return (
      <Dialog title="Purge session?" onClose={() => setPurging(null)} className="confirm">
        <p>
          Delete <strong>{sessionLabel(purging)}</strong> and its whole transcript for good? This cannot be undone.
        </p>
        <div className="dialog-actions">
          <button type="button" onClick={() => setPurging(null)} autoFocus>
            Cancel
          </button>
          <button
            type="button"
            className="danger"
            onClick={() => {
              const id = purging.id;
              setPurging(null);
              void attempt(() => bridge.invoke('sessions.purge', { id })).then(load);
            }}
          >
            Purge
          </button>
        </div>
      </Dialog>
    );
  }
  return (
    <Dialog title="Trash" onClose={onClose} className="trash-dialog">
      {trashed === null ? (
        <p role="status">Loading…</p>
      ) : trashed.length === 0 ? (
        <p>The Trash is empty.</p>
      ) : (
        <ul className="trash-list" aria-label="Deleted sessions">
          {trashed.map((s) => (
            <li key={s.id}>
              <span className="trash-title">{sessionLabel(s)}</span>
              <span className="trash-dates">
                Deleted {when(s.deleted_at)}; purged {when(s.purge_at)}
              </span>
              <span className="trash-actions">
                <button
                  type="button"
                  aria-label={`Restore ${sessionLabel(s)}`}
                  onClick={() => void attempt(() => bridge.invoke('sessions.restore', { id: s.id })).then(load)}
                >
                  Restore
                </button>
                <button type="button" className="danger" aria-label={`Purge ${sessionLabel(s)}`} onClick={() => setPurging(s)}>
                  Purge…
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
      <div className="dialog-actions">
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
