/**
 * Everything about one session: ids, times, transcript size, each compaction with its
 * time and token figures, cumulative usage by kind of model call, and what is allowed for
 * the rest of the session (revocable).
 */
import { useEffect, useState } from 'react';
import type { SessionInfo } from '../../shared/contract';
import { CALL_KINDS, type SessionFamily, type UsageTotals } from '../../shared/types';
import { useBridge } from '../bridge/context';
import { visibleMessageCount } from '../../shared/message-count';
import { formatCost, formatCount, localTime } from '../lib/format';
import { useSessionInfo } from '../state/session-meta';
import { Dialog } from './Dialog';
import { FamilyTree, ParentLink } from './FamilyTree';
import { SessionGrants } from './SessionGrants';

/** `onOpen`: opens a related session (parent, sibling, fork) in a tab. */
export function InfoDialog({ id, onClose, onOpen }: { id: string; onClose: () => void; onOpen?: (id: string) => void }) {
  const bridge = useBridge();
  const { info, error } = useSessionInfo(id);
  const [family, setFamily] = useState<SessionFamily | null>(null);

  useEffect(() => {
    bridge.invoke('sessions.family', { id }).then(setFamily, () => {}); // the facts still show
  }, [bridge, id]);

  return (
    <Dialog title="Session info" onClose={onClose} className="info">
      {error && <p role="alert">{error}</p>}
      {!info && !error && <p>Loading…</p>}
      {info && <InfoBody info={info} family={family} onOpen={onOpen} />}
      {info && family && onOpen && <FamilyTree info={info} family={family} onOpen={onOpen} />}
      {info && <SessionGrants sessionId={info.id} />}
      <div className="dialog-actions">
        <button type="button" className="primary" onClick={onClose} autoFocus>
          Close
        </button>
      </div>
    </Dialog>
  );
}

function InfoBody({ info, family, onOpen }: { info: SessionInfo; family: SessionFamily | null; onOpen?: (id: string) => void }) {
  return (
    <>
      <dl className="facts">
        <Fact term="ID" value={info.id} mono />
        <Fact term="Title" value={info.title ?? '—'} />
        <Fact term="Summary" value={info.summary ?? '—'} />
        {info.parent_id === null || !family || !onOpen ? (
          <Fact term="Parent" value={info.parent_id ?? '—'} mono />
        ) : (
          <div className="fact">
            <dt>Parent</dt>
            <dd>
              <ParentLink parentId={info.parent_id} parent={family.parent} onOpen={onOpen} />
            </dd>
          </div>
        )}
        <Fact term="Status" value={`${info.status}${info.archived ? ', archived' : ''}`} />
        <Fact term="Created" value={localTime(info.created_at)} />
        <Fact term="Updated" value={localTime(info.updated_at)} />
        <Fact term="Messages" value={formatCount(visibleMessageCount(info))} />
        <Fact term="Compactions" value={formatCount(info.compactions.length)} />
        <Fact term="Model" value={info.model ?? '—'} />
        <Fact term="Project folder" value={info.cwd ?? '—'} mono />
      </dl>
      {info.compactions.length > 0 && (
        <table className="figures" aria-label="Compactions">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">When</th>
              <th scope="col">Tokens before → after</th>
            </tr>
          </thead>
          <tbody>
            {info.compactions.map((c, i) => (
              <tr key={`${c.at}-${i}`}>
                <td>{i + 1}</td>
                <td>{localTime(c.at)}</td>
                <td>
                  {formatCount(c.before_tokens)} → {formatCount(c.after_tokens)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <table className="figures" aria-label="Usage">
        <thead>
          <tr>
            <th scope="col">Kind</th>
            <th scope="col">Calls</th>
            <th scope="col">Prompt tokens</th>
            <th scope="col">Completion tokens</th>
            <th scope="col">Cost (est.)</th>
          </tr>
        </thead>
        <tbody>
          {CALL_KINDS.map((kind) => (
            <UsageRow key={kind} label={kind} totals={info.usage.by_kind[kind]} />
          ))}
          <UsageRow label="total" totals={info.usage} />
        </tbody>
      </table>
    </>
  );
}

function Fact({ term, value, mono }: { term: string; value: string; mono?: boolean }) {
  return (
    <div className="fact">
      <dt>{term}</dt>
      <dd className={mono ? 'mono' : undefined}>{value}</dd>
    </div>
  );
}

function UsageRow({ label, totals }: { label: string; totals: UsageTotals }) {
  return (
    <tr>
      <th scope="row">{label}</th>
      <td>{formatCount(totals.calls)}</td>
      <td>{formatCount(totals.prompt_tokens)}</td>
      <td>{formatCount(totals.completion_tokens)}</td>
      <td>{formatCost(totals.cost_usd)}</td>
    </tr>
  );
}
