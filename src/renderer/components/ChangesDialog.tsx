/**
 * The files a session's tools wrote or edited, with the choice to keep them or put them
 * all back as they were before the session. Keep is the default: it has the focus.
 * Escape (and Cancel, when the dialog asks before a tab closes) does nothing: the files
 * and the tab stay as they are. Reverting asks once more, because created files are deleted.
 */
import { useState } from 'react';
import { plural } from '../lib/format';
import { Dialog } from './Dialog';

interface ChangesDialogProps {
  files: string[];
  /** Shown above the list: why the dialog is asking. */
  intro: string;
  onKeep: () => void;
  /** Closes the dialog changing nothing; with `cancellable` a Cancel button says so. */
  onCancel: () => void;
  cancellable: boolean;
  /** Resolves to an error message when the revert was refused, else null. */
  onRevert: () => Promise<string | null>;
}

export function ChangesDialog({ files, intro, onKeep, onCancel, cancellable, onRevert }: ChangesDialogProps) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const revert = async () => {
    setBusy(true);
    const refused = await onRevert();
    setBusy(false);
    if (refused) {
      setError(refused);
      setConfirming(false);
    }
  };

  return (
    <Dialog title="Changed files" onClose={onCancel} className="changes">
      <p>{intro}</p>
      <ul className="changed-files mono" aria-label="Changed files">
        {files.map((file) => (
          <li key={file}>{file}</li>
        ))}
      </ul>
      {error && <p role="alert">{error}</p>}
      {confirming ? (
        <>
          <p>Revert {plural(files.length, 'file')}? Files this session created are deleted; edited files get their earlier content back.</p>
          <div className="dialog-actions">
            <button type="button" onClick={() => setConfirming(false)} autoFocus>
              Cancel
            </button>
            <button type="button" className="danger" disabled={busy} onClick={() => void revert()}>
              Yes, revert all
            </button>
          </div>
        </>
      ) : (
        <div className="dialog-actions">
          <button type="button" className="primary" onClick={onKeep} autoFocus>
            Keep
          </button>
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            Revert all
          </button>
          {cancellable && (
            <button type="button" onClick={onCancel}>
              Cancel
            </button>
          )}
        </div>
      )}
    </Dialog>
  );
}
