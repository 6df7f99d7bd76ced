/**
 * A session's sub-agents under its sidebar row (docs/DESIGN.md#sub-agents): a disclosure
 * ("2 sub-agents"), collapsed by default so children never crowd the list, that lists
 * them indented, each opening its session; read when opened, and again as they change.
 */
import { useId, useState } from 'react';
import type { SessionMeta } from '../../shared/types';
import { plural, sessionLabel } from '../lib/format';
import { useSubagentRuns } from '../state/subagents';

export function SidebarChildren({ label, parentId, count, onOpen }: { label: string; parentId: string; count: number; onOpen: (meta: SessionMeta) => void }) {
  const [expanded, setExpanded] = useState(false);
  const listId = useId();
  return (
    <div className="session-children">
      <button type="button" className="session-children-toggle" aria-expanded={expanded} aria-controls={listId} onClick={() => setExpanded(!expanded)}>
        <span aria-hidden="true">{expanded ? '▾' : '▸'}</span> {plural(count, 'sub-agent')}
      </button>
      {expanded && <ChildList id={listId} label={label} parentId={parentId} onOpen={onOpen} />}
    </div>
  );
}

function ChildList({ id, label, parentId, onOpen }: { id: string; label: string; parentId: string; onOpen: (meta: SessionMeta) => void }) {
  const runs = useSubagentRuns(parentId);
  return (
    <ul id={id} className="session-children-list" aria-label={`Sub-agents of ${label}`}>
      {runs.map((run) => (
        <li key={run.id}>
          <button type="button" onClick={() => onOpen(run)}>
            {sessionLabel(run)} <span className="session-time">· {run.child.state}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
