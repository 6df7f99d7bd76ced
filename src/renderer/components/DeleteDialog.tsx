/** Confirms a deletion, naming the session. Cancel or Escape changes nothing. */
import { useState } from 'react';
import type { SessionMeta } from '../../shared/types';
import { sessionLabel } from '../lib/format';
import { Dialog } from './Dialog';

export function DeleteDialog({ meta, onClose, onConfirm }: { meta: SessionMeta; onClose: () => void; onConfirm: () => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  return (
    <Dialog title="Delete session?" onClose={onClose} className="confirm">
      <p>
        Delete <strong>{sessionLabel(meta)}</strong> and its whole transcript? This cannot be undone.
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
