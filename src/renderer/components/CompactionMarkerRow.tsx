/**
 * A compaction's place in the transcript: its figures, the way to see what it kept and
 * dropped, and Undo on the one undo would take back. An undone one stays, marked undone.
 */
import { useRef } from 'react';
import type { CompactionDetail } from '../../shared/types';
import type { CompactionMarker } from '../state/chat-reducer';
import { formatCount, localTime } from '../lib/format';

export interface MarkerActions {
  show(record: CompactionDetail, n: number): void;
  undo(): Promise<void>;
  /** A turn or a compaction is under way: nothing to undo until it ends. */
  busy: boolean;
}

export function CompactionMarkerRow({ marker, n, actions }: { marker: CompactionMarker; n: number; actions: MarkerActions }) {
  const { record } = marker;
  const showButton = useRef<HTMLButtonElement>(null);
  const undone = record?.undone_at != null;
  return (
    <div className={undone ? 'marker marker-undone' : 'marker'} role="note" aria-label={`Compaction ${n}${undone ? ' (undone)' : ''}`}>
      <span>
        {undone ? 'Compaction undone' : 'Context compacted'} · {formatCount(marker.before_tokens)} → {formatCount(marker.after_tokens)} tokens
        {marker.at && ` · ${localTime(marker.at)}`}
      </span>
      <span className="marker-hint">
        {undone ? 'The model sees these earlier messages again.' : 'Earlier messages stay here; the model now sees a summary of them.'}
      </span>
      {record && (
        <span className="marker-actions">
          <button
            ref={showButton}
            type="button"
            className="small"
            onClick={() => actions.show(record, n)}
            aria-label={`What was kept and dropped (compaction ${n})`}
          >
            What was kept and dropped
          </button>
          {/* Once undone this button is gone: the focus goes to its neighbour. */}
          {record.undoable && (
            <button
              type="button"
              className="small"
              onClick={() => void actions.undo().then(() => showButton.current?.focus())}
              disabled={actions.busy}
              aria-label={`Undo compaction ${n}`}
            >
              Undo
            </button>
          )}
        </span>
      )}
    </div>
  );
}
