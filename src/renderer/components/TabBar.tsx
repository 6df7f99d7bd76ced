/**
 * One tab per open session; the label follows the session's title as it changes, and a
 * badge (a sign and words, not a colour alone) tells a tab at work or waiting for the user
 * from an idle one, for every open tab.
 */
import { useEffect, useRef, useSyncExternalStore } from 'react';
import { sessionLabel } from '../lib/format';
import { isBusy } from '../state/chat-reducer';
import type { ChatSession } from '../state/chat-session';
import { useSessionMeta } from '../state/session-meta';

interface TabBarProps {
  tabs: string[];
  /** Each open session's chat controller (made and loaded if new): its state gives the badge. */
  chatFor: (id: string) => ChatSession;
  active: string | null;
  onSelect: (id: string) => void;
  onClose: (id: string) => void;
  onNew: () => void;
}

export function TabBar({ tabs, chatFor, active, onSelect, onClose, onNew }: TabBarProps) {
  const list = useRef<HTMLDivElement>(null);
  // A tab opened or chosen elsewhere (a fork, the sidebar, a shortcut) may lie outside the scrolled strip.
  useEffect(() => {
    list.current?.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [active, tabs]);
  return (
    <div className="tabbar">
      <div ref={list} role="tablist" aria-label="Open sessions" className="tabs">
        {tabs.map((id) => (
          <Tab key={id} id={id} chat={chatFor(id)} active={id === active} onSelect={onSelect} onClose={onClose} />
        ))}
      </div>
      <button type="button" className="icon" aria-label="New tab with a new session" title="New session (Alt+N)" onClick={onNew}>
        +
      </button>
    </div>
  );
}

interface TabProps {
  id: string;
  chat: ChatSession;
  active: boolean;
  onSelect: (id: string) => void;
  onClose: (id: string) => void;
}

function Tab({ id, chat, active, onSelect, onClose }: TabProps) {
  const { meta, missing } = useSessionMeta(id);
  const snap = useSyncExternalStore(chat.subscribe, chat.getSnapshot);
  const label = meta ? sessionLabel(meta) : `Session ${id.slice(0, 8)}${missing ? ' (unavailable)' : ''}`;
  const badge = badgeFor(snap.approvals.length > 0, snap.questions.length > 0, isBusy(snap.phase));
  return (
    <div className={`tab${active ? ' active' : ''}`} role="presentation">
      <button
        type="button"
        role="tab"
        aria-selected={active}
        className="tab-label"
        title={badge ? `${label} (${badge.text})` : label}
        aria-keyshortcuts="Delete"
        onClick={() => onSelect(id)}
        onAuxClick={(event) => event.button === 1 && onClose(id)}
        onKeyDown={(event) => {
          if (event.key === 'Delete') onClose(id);
        }}
      >
        <span className="tab-title">{label}</span>
        {badge && (
          <span className={`tab-badge tab-badge-${badge.kind}`}>
            <span aria-hidden="true">{badge.sign}</span>
            <span className="visually-hidden"> ({badge.text})</span>
          </span>
        )}
      </button>
      {/* A tab list may hold only tabs: the × is for the pointer, a focused tab closes with Delete (or Alt+W). */}
      <button
        type="button"
        className="icon tab-close"
        aria-hidden="true"
        tabIndex={-1}
        title={`Close tab ${label} (Delete, Alt+W)`}
        // Not focused by the click: a dialog it opens gives the focus back to where it was.
        onMouseDown={(event) => event.preventDefault()}
        onClick={() => onClose(id)}
      >
        ×
      </button>
    </div>
  );
}

/** What a tab's badge says: waiting for the user comes before merely working. */
function badgeFor(approval: boolean, question: boolean, busy: boolean): { kind: 'attention' | 'busy'; sign: string; text: string } | null {
  if (approval) return { kind: 'attention', sign: '!', text: 'needs your approval' };
  if (question) return { kind: 'attention', sign: '?', text: 'asks you a question' };
  if (busy) return { kind: 'busy', sign: '…', text: 'working' };
  return null;
}
