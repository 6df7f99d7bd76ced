/**
 * What one compaction kept and dropped (docs/DESIGN.md#seeing-and-undoing-a-compaction):
 * the transcript range it summarised, those messages themselves (the transcript keeps
 * them; only the model's view lost them), the summary that took their place, what Loom
 * carried beside it, the tokens before and after and the summariser requests it took.
 * The last compaction not yet undone can be undone here.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { ChatMessage, CompactionDetail } from '../../shared/types';
import { useBridge } from '../bridge/context';
import { SUMMARISED_SHOWN, rangeLabel, summarisedRange } from '../lib/compactions';
import { formatCount, localTime, plural } from '../lib/format';
import { Dialog } from './Dialog';
import { Fact } from './Fact';
import { MessageRow } from './MessageRow';
import { errorMessage } from '../lib/errors';

interface CompactionDialogProps {
  sessionId: string;
  record: CompactionDetail;
  /** Its number in the session (Compaction 1, 2…). */
  n: number;
  onClose: () => void;
  onUndo: () => void;
}

export function CompactionDialog({ sessionId, record, n, onClose, onUndo }: CompactionDialogProps) {
  const close = useRef<HTMLButtonElement>(null);
  return (
    <Dialog title={`Compaction ${n}: what was kept and dropped`} onClose={onClose} className="compaction-view" initialFocus={close}>
      <dl className="facts">
        <Fact term="When" value={localTime(record.at)} />
        <Fact term="Summarised" value={rangeLabel(record)} />
        <Fact term="Tokens before → after" value={`${formatCount(record.before_tokens)} → ${formatCount(record.after_tokens)}`} />
        <Fact term="Summariser requests" value={record.steps === null ? 'Not recorded' : formatCount(record.steps)} />
        <Fact term="Status" value={record.undone_at ? `Undone ${localTime(record.undone_at)}` : 'In force'} />
      </dl>
      <Section title="Dropped from the model's view">
        <SummarisedMessages sessionId={sessionId} record={record} />
      </Section>
      <Section title="The summary that replaced them">
        <pre className="compaction-text">{record.summary}</pre>
      </Section>
      <Section title="Carried by Loom beside it">
        {record.carried ? (
          <pre className="compaction-text">{record.carried}</pre>
        ) : (
          <p className="compaction-none">Nothing: no pins, plan or changed files then.</p>
        )}
      </Section>
      <div className="dialog-actions">
        {record.undoable && (
          <button
            type="button"
            onClick={() => {
              onClose();
              onUndo();
            }}
            title="The working context before this compaction comes back; this record stays, marked undone"
          >
            Undo this compaction
          </button>
        )}
        <button ref={close} type="button" className="primary" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="compaction-section" aria-label={title}>
      <h3>{title}</h3>
      {children}
    </section>
  );
}

/** The messages it summarised, read from the transcript (the first SUMMARISED_SHOWN of them). */
function SummarisedMessages({ sessionId, record }: { sessionId: string; record: CompactionDetail }) {
  const bridge = useBridge();
  const range = summarisedRange(record);
  const [messages, setMessages] = useState<ChatMessage[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const offset = range ? range.first - 1 : 0;
  const count = range ? Math.min(range.count, SUMMARISED_SHOWN) : 0;
  useEffect(() => {
    if (count === 0) return;
    let live = true;
    bridge.invoke('sessions.transcript', { id: sessionId, offset, limit: count }).then(
      (page) => live && setMessages(page.messages),
      (err: unknown) => live && setError(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, [bridge, sessionId, offset, count]);
  if (!range) return <p className="compaction-none">This compaction is older than the record of its range.</p>;
  if (error) return <p role="alert">{error}</p>;
  if (!messages) return <p>Loading…</p>;
  return (
    <>
      {range.count > count && (
        <p className="compaction-none">
          The first {formatCount(count)} of {plural(range.count, 'message')}; the transcript shows them all.
        </p>
      )}
      <ol className="compaction-messages" aria-label="Summarised messages">
        {/* A system prompt within the range (a changed AGENTS.md) was not summarised: the model still sees the latest. */}
        {messages.map((message, i) =>
          message.role === 'system' ? null : (
            <li key={offset + i} value={offset + i + 1}>
              <MessageRow message={message} />
            </li>
          ),
        )}
      </ol>
    </>
  );
}
