/** One tab per open session; the label follows the session's title as it changes. */
import { useEffect, useRef } from 'react';
import { sessionLabel } from '../lib/format';
import { useSessionMeta } from '../state/session-meta';

interface TabBarProps {
  tabs: string[];
  active: string | null;
  onSelect: (id: string) => void;
  onClose: (id: string) => void;
  onNew: () => void;
}

export function TabBar({ tabs, active, onSelect, onClose, onNew }: TabBarProps) {
  const list = useRef<HTMLDivElement>(null);
  // A tab opened or chosen elsewhere (a fork, the sidebar, a shortcut) may lie outside the scrolled strip.
  useEffect(() => {
    list.current?.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [active, tabs]);
  return (
    <div className="tabbar">
      <div ref={list} role="tablist" aria-label="Open sessions" className="tabs">
        {tabs.map((id) => (
          <Tab key={id} id={id} active={id === active} onSelect={onSelect} onClose={onClose} />
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
  active: boolean;
  onSelect: (id: string) => void;
  onClose: (id: string) => void;
}

function Tab({ id, active, onSelect, onClose }: TabProps) {
  const { meta, missing } = useSessionMeta(id);
  const label = meta ? sessionLabel(meta) : `Session ${id.slice(0, 8)}${missing ? ' (unavailable)' : ''}`;
  return (
    <div className={`tab${active ? ' active' : ''}`}>
      <button
        type="button"
        role="tab"
        aria-selected={active}
        className="tab-label"
        title={label}
        onClick={() => onSelect(id)}
        onAuxClick={(event) => event.button === 1 && onClose(id)}
      >
        {label}
      </button>
      <button type="button" className="icon tab-close" aria-label={`Close tab ${label}`} title="Close tab (Alt+W)" onClick={() => onClose(id)}>
        ×
      </button>
    </div>
  );
}
