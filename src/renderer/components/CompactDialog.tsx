/**
 * Compact now, with an optional focus line: what the summary should keep above all (the
 * summariser is told it as one more sentence of its prompt). Left empty, the plain request.
 */
import { useState } from 'react';
import { Dialog } from './Dialog';

export function CompactDialog({ onClose, onCompact }: { onClose: () => void; onCompact: (focus: string) => void }) {
  const [focus, setFocus] = useState('');
  return (
    <Dialog title="Compact now" onClose={onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onClose();
          onCompact(focus);
        }}
      >
        <p className="dialog-intro">Older turns become one summary in what the model sees; the transcript keeps every message.</p>
        <label className="field">
          <span>Keep above all (optional)</span>
          <input value={focus} onChange={(e) => setFocus(e.target.value)} maxLength={2000} placeholder="e.g. the database schema decisions" autoFocus />
        </label>
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary">
            Compact
          </button>
        </div>
      </form>
    </Dialog>
  );
}
