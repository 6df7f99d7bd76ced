/**
 * Everything about one session: ids, times, transcript size, the project instructions and
 * the model's window it runs with, each compaction with its time, token figures and
 * requests (the last one undoable), each change of its model and agent, cumulative usage by kind of
 * model call, its pins, and what is allowed for the rest of the session (revocable).
 */
import { useEffect, useRef, useState } from 'react';
import type { ContextState, SessionInfo } from '../../shared/contract';
import { CALL_KINDS, type CompactionDetail, type SessionFamily, type UsageTotals } from '../../shared/types';
import { useBridge } from '../bridge/context';
import { visibleMessageCount } from '../../shared/message-count';
import { compactionCounts, rangeLabel } from '../lib/compactions';
import { formatCost, formatCount, localTime } from '../lib/format';
import { useCompactionDetails } from '../state/session-records';
import { useSessionInfo } from '../state/session-meta';
import { Dialog } from './Dialog';
import { Fact } from './Fact';
import { FamilyTree, ParentLink } from './FamilyTree';
import { PinsSection } from './PinsSection';
import { SessionGrants } from './SessionGrants';
import { errorMessage } from '../lib/errors';

/** Each change of the session's model or agent: when, from, to, and the message it applies from. */
function ChangesTable({
  label,
  changes,
  none,
}: {
  label: string;
  changes: readonly { at: string; from: string | null; to: string; transcript_index: number }[];
  none: string;
}) {
  if (changes.length === 0) return null;
  return (
    <table className="figures" aria-label={label}>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">From</th>
          <th scope="col">To</th>
          <th scope="col">From message</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((change, i) => (
          <tr key={`${change.at}-${i}`}>
            <td>{localTime(change.at)}</td>
            <td>{change.from ?? none}</td>
            <td>{change.to}</td>
            <td>{formatCount(change.transcript_index + 1)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** `onOpen`: opens a related session (parent, sibling, fork) in a tab. */
export function InfoDialog({ id, onClose, onOpen }: { id: string; onClose: () => void; onOpen?: (id: string) => void }) {
  const bridge = useBridge();
  const { info, error } = useSessionInfo(id);
  const [family, setFamily] = useState<SessionFamily | null>(null);
  const [context, setContext] = useState<ContextState | null>(null);
  const compactions = useCompactionDetails(id);

  useEffect(() => {
    bridge.invoke('sessions.family', { id }).then(setFamily, () => {}); // the facts still show
    bridge.invoke('chat.context', { sessionId: id }).then(setContext, () => {});
  }, [bridge, id]);

  return (
    <Dialog title="Session info" onClose={onClose} className="info">
      {error && <p role="alert">{error}</p>}
      {!info && !error && <p>Loading…</p>}
      {info && <InfoBody info={info} family={family} onOpen={onOpen} context={context} compactions={compactions.compactions ?? []} />}
      {info && <CompactionsTable sessionId={info.id} compactions={compactions.compactions ?? []} onUndone={compactions.refresh} />}
      {info && family && onOpen && <FamilyTree info={info} family={family} onOpen={onOpen} />}
      {info && <PinsSection sessionId={info.id} />}
      {info && <SessionGrants sessionId={info.id} />}
      <div className="dialog-actions">
        <button type="button" className="primary" onClick={onClose} autoFocus>
          Close
        </button>
      </div>
    </Dialog>
  );
}

interface InfoBodyProps {
  info: SessionInfo;
  family: SessionFamily | null;
  onOpen?: (id: string) => void;
  context: ContextState | null;
  compactions: CompactionDetail[];
}

function InfoBody({ info, family, onOpen, context, compactions }: InfoBodyProps) {
  const counts = compactionCounts(compactions);
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
        <Fact term="Summariser requests" value={formatCount(counts.steps)} />
        <Fact term="Undone" value={formatCount(counts.undone)} />
        <Fact term="Model" value={info.model ?? '—'} />
        <Fact term="Agent" value={info.agent ?? 'build'} />
        <Fact term="Model window" value={windowText(context)} />
        <Fact term="Project folder" value={info.cwd ?? '—'} mono />
        <Fact term="Project instructions" value={instructionsText(context)} />
      </dl>
      <ChangesTable label="Model changes" changes={info.model_changes} none="—" />
      <ChangesTable label="Agent changes" changes={info.agent_changes} none="build" />
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

const WINDOW_SOURCES: Record<NonNullable<ContextState['modelWindow']>['source'], string> = {
  server: 'as the model server reports it',
  setting: 'from the Model window setting',
  refusal: 'learnt from a request the server refused as too long',
};

function windowText(context: ContextState | null): string {
  if (!context?.modelWindow) return 'Not known yet';
  return `${formatCount(context.modelWindow.tokens)} tokens, ${WINDOW_SOURCES[context.modelWindow.source]}`;
}

/** The AGENTS.md or CLAUDE.md the system prompt ends with; known once the session is open in this window's engine. */
function instructionsText(context: ContextState | null): string {
  const file = context?.instructions;
  if (!file) return 'None loaded';
  return `${file.file}, ${formatCount(file.bytes)} bytes${file.truncated ? ', cut at 32 KiB' : ''}`;
}

/** Each compaction, with Undo on the one undo would take back (it comes back as it was before). */
function CompactionsTable({ sessionId, compactions, onUndone }: { sessionId: string; compactions: CompactionDetail[]; onUndone: () => void }) {
  const bridge = useBridge();
  const [failure, setFailure] = useState<string | null>(null);
  const table = useRef<HTMLTableElement>(null);
  if (compactions.length === 0) return null;
  const undo = () => {
    setFailure(null);
    bridge.invoke('chat.uncompact', { sessionId }).then(
      () => {
        // The Undo button that had the focus is gone.
        table.current?.focus();
        onUndone();
      },
      (err: unknown) => setFailure(errorMessage(err)),
    );
  };
  return (
    <>
      {failure && <p role="alert">{failure}</p>}
      <table ref={table} tabIndex={-1} className="figures" aria-label="Compactions">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">When</th>
            <th scope="col">Summarised</th>
            <th scope="col">Tokens before → after</th>
            <th scope="col">Requests</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {compactions.map((c, i) => (
            <tr key={c.id}>
              <td>{i + 1}</td>
              <td>{localTime(c.at)}</td>
              <td>{rangeLabel(c)}</td>
              <td>
                {formatCount(c.before_tokens)} → {formatCount(c.after_tokens)}
              </td>
              <td>{c.steps === null ? '—' : formatCount(c.steps)}</td>
              <td>
                {c.undone_at ? (
                  'undone'
                ) : c.undoable ? (
                  <button type="button" className="small" onClick={undo} aria-label={`Undo compaction ${i + 1}`}>
                    Undo
                  </button>
                ) : (
                  'in force'
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
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
