/**
 * A session's lineage in the info dialog: the parent named by its title (a link that
 * opens it), and the whole family as a small tree from its root, each branch under the
 * session it was made from and each opening in a tab; this session is marked.
 */
import type { ReactNode } from 'react';
import type { SessionInfo } from '../../shared/contract';
import type { SessionFamily, SessionMeta } from '../../shared/types';
import { messageCountText } from '../../shared/message-count';
import { localTime, sessionLabel } from '../lib/format';

export function ParentLink({ parentId, parent, onOpen }: { parentId: string; parent: SessionMeta | null; onOpen: (id: string) => void }) {
  if (!parent) return <span className="mono">{parentId} (deleted)</span>;
  return (
    <button type="button" className="link" onClick={() => onOpen(parent.id)} title={`Open ${parent.id}`}>
      {sessionLabel(parent)}
    </button>
  );
}

export function FamilyTree({ info, family, onOpen }: { info: SessionInfo; family: SessionFamily; onOpen: (id: string) => void }) {
  if (family.members.length < 2) return null;
  const ids = new Set(family.members.map((meta) => meta.id));
  const roots = family.members.filter((meta) => meta.parent_id === null || !ids.has(meta.parent_id));
  const below = new Map<string, SessionMeta[]>();
  for (const meta of family.members) {
    if (meta.parent_id !== null && ids.has(meta.parent_id)) below.set(meta.parent_id, [...(below.get(meta.parent_id) ?? []), meta]);
  }
  const branch = (meta: SessionMeta): ReactNode => {
    const children = below.get(meta.id) ?? [];
    const nested = children.length > 0 && <ul>{children.map(branch)}</ul>;
    if (meta.id !== info.id) return <FamilyMember key={meta.id} meta={meta} onOpen={onOpen} nested={nested} />;
    return (
      <li key={meta.id}>
        <span className="family-self" aria-current="true">
          {sessionLabel(meta)} (this session)
        </span>
        {nested}
      </li>
    );
  };
  return (
    <section className="family" aria-label="Family">
      <h3>Family</h3>
      <ul className="family-tree">
        {roots.some((meta) => meta.parent_id !== null) && (
          <li>
            <span className="family-meta">Parent deleted</span>
          </li>
        )}
        {roots.map(branch)}
      </ul>
    </section>
  );
}

function FamilyMember({ meta, onOpen, nested }: { meta: SessionMeta; onOpen: (id: string) => void; nested?: ReactNode }) {
  return (
    <li>
      <button type="button" className="link" onClick={() => onOpen(meta.id)} title={`${meta.id} · ${localTime(meta.created_at)}`}>
        {sessionLabel(meta)}
      </button>
      <span className="family-meta">
        {' '}
        · {messageCountText(meta)}
        {meta.archived ? ' · archived' : ''}
      </span>
      {nested}
    </li>
  );
}
