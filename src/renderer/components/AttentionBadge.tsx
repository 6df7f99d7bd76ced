/** A session's marker after its name (a tab, a sidebar row, the list of tabs): the sign for the eye, the words for screen readers. */
import type { AttentionMarker } from '../state/attention';

export function AttentionBadge({ marker }: { marker: AttentionMarker }) {
  return (
    <span className={`tab-badge tab-badge-${marker.kind === 'busy' ? 'busy' : 'attention'}`}>
      <span aria-hidden="true">{marker.sign}</span>
      <span className="visually-hidden"> ({marker.text})</span>
    </span>
  );
}
