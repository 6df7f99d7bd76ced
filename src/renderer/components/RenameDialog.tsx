/** Gives a session a title of the user's choosing. */
import { useState } from 'react';
import type { SessionMeta } from '../../shared/types';
import { Dialog } from './Dialog';

export function RenameDialog({ meta, onClose, onRename }: { meta: SessionMeta; onClose: () => void; onRename: (title: string) => Promise<unknown> }) {
  const [title, setTitle] = useState(meta.title ?? meta.summary ?? '');
  return (
    <Dialog title="Rename session" onClose={onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          // onRename reports its own failure and resolves falsy then.
          void onRename(title).then((renamed) => renamed && onClose());
        }}
      >
        <label className="field">
          <span>Title</span>
          <input value={title} onChange={(e) => setTitle(e.target.value)} maxLength={200} autoFocus required />
        </label>
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={!title.trim()}>
            Rename
          </button>
        </div>
      </form>
    </Dialog>
  );
}
