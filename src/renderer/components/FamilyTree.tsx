/**
 * A session's lineage in the info dialog: the parent named by its title (a link that
 * opens it), and the family as a small tree — parent, then its forks (this session and
 * its siblings), then this session's own forks — each opening in a tab.
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
  if (!family.parent && family.siblings.length === 0 && family.children.length === 0) return null;
  const generation = [...family.siblings, info].sort((a, b) => a.created_at.localeCompare(b.created_at));
  const withChildren = (
    <ul>
      {generation.map((meta) =>
        meta.id === info.id ? (
          <li key={meta.id}>
            <span className="family-self" aria-current="true">
              {sessionLabel(meta)} (this session)
            </span>
            {family.children.length > 0 && (
              <ul>
                {family.children.map((child) => (
                  <FamilyMember key={child.id} meta={child} onOpen={onOpen} />
                ))}
              </ul>
            )}
          </li>
        ) : (
          <FamilyMember key={meta.id} meta={meta} onOpen={onOpen} />
        ),
      )}
    </ul>
  );
  return (
    <section className="family" aria-label="Family">
      <h3>Family</h3>
      <ul className="family-tree">
        {family.parent ? (
          <FamilyMember meta={family.parent} onOpen={onOpen} nested={withChildren} />
        ) : (
          <li>
            {info.parent_id !== null && <span className="family-meta">Parent deleted</span>}
            {withChildren}
          </li>
        )}
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
