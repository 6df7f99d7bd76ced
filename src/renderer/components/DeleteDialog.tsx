/** Confirms a deletion, naming the session and how long the Trash keeps it. Cancel or Escape changes nothing. */
import { useState } from 'react';
import type { SessionMeta } from '../../shared/types';
import { sessionLabel } from '../lib/format';
import { Dialog } from './Dialog';

interface DeleteDialogProps {
  meta: SessionMeta;
  trashDays: number;
  onClose: () => void;
  onConfirm: () => Promise<void>;
}

export function DeleteDialog({ meta, trashDays, onClose, onConfirm }: DeleteDialogProps) {
  const [busy, setBusy] = useState(false);
  return (
    <Dialog title="Delete session?" onClose={onClose} className="confirm">
      <p>
        Delete <strong>{sessionLabel(meta)}</strong>? It stays in the Trash for {trashDays === 1 ? '1 day' : `${trashDays} days`}, then it is purged.
      </p>
      <div className="dialog-actions">
        <button type="button" onClick={onClose} autoFocus>
          Cancel
        </button>
        <button
          type="button"
          className="danger"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            // onConfirm reports its own failures.
            void onConfirm().then(onClose);
          }}
        >
          Delete
        </button>
      </div>
    </Dialog>
  );
}
