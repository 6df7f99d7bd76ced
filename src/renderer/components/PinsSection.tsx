/**
 * The info dialog's "Pinned" list: what Loom carries word for word through every
 * compaction (docs/DESIGN.md#what-compaction-carries), each with Unpin, and a field to pin
 * a note. Unpinning moves focus to the list's heading, since the button that had it is gone.
 */
import { useId, useRef, useState } from 'react';
import { pinLabel } from '../lib/compactions';
import { usePins } from '../state/session-records';
import { errorMessage } from '../lib/errors';

export function PinsSection({ sessionId }: { sessionId: string }) {
  const { pins, error, pinNote, unpin } = usePins(sessionId);
  const [note, setNote] = useState('');
  const [failure, setFailure] = useState<string | null>(null);
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const attempt = (action: Promise<void>, after?: () => void) => {
    setFailure(null);
    action.then(after, (err: unknown) => setFailure(errorMessage(err)));
  };
  return (
    <section className="pins" aria-labelledby={headingId}>
      <h3 id={headingId} ref={heading} tabIndex={-1}>
        Pinned
      </h3>
      {(error ?? failure) && <p role="alert">{error ?? failure}</p>}
      {pins?.length === 0 && <p className="pins-none">Nothing pinned. Pin a message from its actions, or a note here: compactions carry pins word for word.</p>}
      {pins && pins.length > 0 && (
        <ul>
          {pins.map((pin) => (
            <li key={pin.id}>
              <span className="pin-text">
                <span className="pin-label">{pinLabel(pin)}:</span> {pin.text}
              </span>
              <button
                type="button"
                aria-label={`Unpin: ${pinLabel(pin)}`}
                onClick={() => {
                  attempt(unpin(pin.id));
                  heading.current?.focus();
                }}
              >
                Unpin
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        className="pin-note"
        onSubmit={(event) => {
          event.preventDefault();
          attempt(pinNote(note), () => setNote(''));
        }}
      >
        <label className="field">
          <span>Note to pin</span>
          <input value={note} onChange={(e) => setNote(e.target.value)} maxLength={4000} />
        </label>
        <button type="submit" disabled={!note.trim()}>
          Pin note
        </button>
      </form>
    </section>
  );
}
