/**
 * The notice after a delete or an archive (docs/DESIGN.md#trash): what happened and an Undo
 * button, announced (role=status), reachable by keyboard, gone after UNDO_NOTICE_MS.
 */
import { useEffect } from 'react';

/** Long enough to read the line and reach the button, short enough not to linger. */
const UNDO_NOTICE_MS = 10_000;

export interface UndoOffer {
  text: string;
  undo: () => Promise<void>;
  /** Tells one offer from the next with the same text, so the timer starts again. */
  n: number;
}

export function UndoNotice({ offer, onDone }: { offer: UndoOffer; onDone: () => void }) {
  useEffect(() => {
    const timer = setTimeout(onDone, UNDO_NOTICE_MS);
    return () => clearTimeout(timer);
  }, [offer.n, onDone]);
  return (
    <div className="banner banner-info undo-notice" role="status">
      <span>{offer.text}</span>
      <button
        type="button"
        onClick={() => {
          onDone();
          void offer.undo();
        }}
      >
        Undo
      </button>
    </div>
  );
}
