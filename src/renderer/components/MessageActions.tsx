/**
 * The actions under a message. Branches (docs/DESIGN.md#branches-in-the-ui): Edit message (yours),
 * Regenerate (a reply), Fork from here (any), and the "2 / 3" version switcher where the
 * conversation has sibling branches at that message. The working context
 * (docs/DESIGN.md#seeing-and-undoing-a-compaction): Pin or Unpin (carried through every
 * compaction) and Compact up to here. ChatView provides what they act on; without a
 * provider those are not shown.
 */
import { createContext, useContext, useState } from 'react';
import type { BranchPoint } from '../../shared/contract';
import type { ChatMessage, Pin } from '../../shared/types';
import { userText } from '../lib/display';

export interface BranchActions {
  /** A turn is running: no new branch from this session until it ends. */
  busy: boolean;
  points: Map<number, BranchPoint>;
  /** Resolves to false when the edit was refused (the editor then stays open). */
  edit(index: number, text: string): Promise<boolean>;
  regenerate(index: number): void;
  forkFrom(index: number): void;
  /** Shows the sibling branch `id` in this tab, at message `index`. */
  switchTo(id: string, index: number): void;
  /** Index of the session's last message: a message of yours there, unanswered, can get a reply. */
  lastIndex: number;
  /** Asks the model to answer the user message the session ends with (a branch whose reply failed). */
  reply(): void;
}

export const BranchActionsContext = createContext<BranchActions | null>(null);

export interface ContextActions {
  /** A turn or a compaction is under way: no compaction until it ends. */
  busy: boolean;
  /** The pin of each pinned message, by transcript index. */
  pinned: Map<number, Pin>;
  pin(index: number): void;
  unpin(pinId: number): void;
  /** Summarises the working context only up to (and with) the message at `index`. */
  compactUpTo(index: number): void;
}

export const ContextActionsContext = createContext<ContextActions | null>(null);

export function MessageActions({ index, message }: { index: number; message: ChatMessage }) {
  const actions = useContext(BranchActionsContext);
  const context = useContext(ContextActionsContext);
  const [editing, setEditing] = useState(false);
  if (!actions || message.role === 'system') return null;
  const point = actions.points.get(index);
  const pin = context?.pinned.get(index);
  return (
    <>
      {editing && message.role === 'user' && (
        <EditBox
          initial={userText(message.content)}
          busy={actions.busy}
          onCancel={() => setEditing(false)}
          onSubmit={async (text) => {
            if (await actions.edit(index, text)) setEditing(false);
          }}
        />
      )}
      <div className="msg-actions">
        {point && <VersionSwitcher point={point} onSwitch={(id) => actions.switchTo(id, index)} />}
        {message.role === 'user' && !editing && (
          <button type="button" className="small" onClick={() => setEditing(true)} disabled={actions.busy}>
            Edit message
          </button>
        )}
        {message.role === 'user' && index === actions.lastIndex && !actions.busy && !editing && (
          <button type="button" className="small" onClick={() => actions.reply()} title="Ask the model to answer this message">
            Get a reply
          </button>
        )}
        {message.role === 'assistant' && (
          <button type="button" className="small" onClick={() => actions.regenerate(index)} disabled={actions.busy}>
            Regenerate
          </button>
        )}
        <button type="button" className="small" onClick={() => actions.forkFrom(index)} title="A new session with the conversation up to here, in a new tab">
          Fork from here
        </button>
        {context &&
          (pin ? (
            <button type="button" className="small" onClick={() => context.unpin(pin.id)} title="No longer carry this message through compactions">
              Unpin
            </button>
          ) : (
            <button type="button" className="small" onClick={() => context.pin(index)} title="Carry this message, word for word, through every compaction">
              Pin
            </button>
          ))}
        {context && (
          <button
            type="button"
            className="small"
            onClick={() => context.busy || context.compactUpTo(index)}
            aria-disabled={context.busy}
            title="Summarise the conversation up to and with this message; what follows stays as it is"
          >
            Compact up to here
          </button>
        )}
      </div>
    </>
  );
}

function VersionSwitcher({ point, onSwitch }: { point: BranchPoint; onSwitch: (id: string) => void }) {
  const { current, branches } = point;
  const previous = branches[current - 1];
  const next = branches[current + 1];
  return (
    <span className="versions" role="group" aria-label={`Version ${current + 1} of ${branches.length}`}>
      <button type="button" className="small" aria-label="Previous version" disabled={!previous} onClick={() => previous && onSwitch(previous.id)}>
        ‹
      </button>
      <span className="versions-count">
        {current + 1} / {branches.length}
      </span>
      <button type="button" className="small" aria-label="Next version" disabled={!next} onClick={() => next && onSwitch(next.id)}>
        ›
      </button>
    </span>
  );
}

function EditBox({ initial, busy, onCancel, onSubmit }: { initial: string; busy: boolean; onCancel: () => void; onSubmit: (text: string) => Promise<void> }) {
  const [text, setText] = useState(initial);
  const [sending, setSending] = useState(false);
  const submit = async () => {
    if (!text.trim() || busy || sending) return;
    setSending(true);
    try {
      await onSubmit(text);
    } finally {
      setSending(false);
    }
  };
  return (
    <form
      className="edit-box"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <textarea
        aria-label="Edited message"
        value={text}
        rows={3}
        autoFocus
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') onCancel();
          if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
            event.preventDefault();
            void submit();
          }
        }}
      />
      <div className="edit-box-actions">
        <button type="button" onClick={onCancel}>
          Cancel edit
        </button>
        <button
          type="submit"
          className="primary"
          disabled={!text.trim() || busy || sending}
          title="A new branch from here with this message; the old one stays reachable"
        >
          Submit edit
        </button>
      </div>
    </form>
  );
}
