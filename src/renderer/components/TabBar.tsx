/** One tab per open session; the label follows the session's title as it changes. */
import { useEffect, useRef, useState } from 'react';
import type { LoomBridge } from '../../shared/contract';
import { sessionLabel } from '../lib/format';

interface TabBarProps {
  bridge: LoomBridge;
  tabs: string[];
  active: string | null;
  onSelect: (id: string) => void;
  onClose: (id: string) => void;
  onNew: () => void;
}

export function TabBar({ bridge, tabs, active, onSelect, onClose, onNew }: TabBarProps) {
  const labels = useTabLabels(bridge, tabs);
  const list = useRef<HTMLDivElement>(null);
  // A tab opened or chosen elsewhere (a fork, the sidebar, a shortcut) may lie outside the scrolled strip.
  useEffect(() => {
    list.current?.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [active, tabs]);
  return (
    <div className="tabbar">
      <div ref={list} role="tablist" aria-label="Open sessions" className="tabs">
        {tabs.map((id) => {
          const label = labels[id] ?? `Session ${id.slice(0, 8)}`;
          return (
            <div key={id} className={`tab${id === active ? ' active' : ''}`}>
              <button
                type="button"
                role="tab"
                aria-selected={id === active}
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
        })}
      </div>
      <button type="button" className="icon" aria-label="New tab with a new session" title="New session (Alt+N)" onClick={onNew}>
        +
      </button>
    </div>
  );
}

/** Titles of the open sessions: fetched for the tabs, then kept by each session's change event. */
function useTabLabels(bridge: LoomBridge, tabs: string[]): Record<string, string> {
  const [labels, setLabels] = useState<Record<string, string>>({});

  useEffect(
    () =>
      bridge.onEvent((event) => {
        if (event.type === 'session_changed') {
          const label = sessionLabel(event.meta);
          setLabels((old) => (event.sessionId in old && old[event.sessionId] !== label ? { ...old, [event.sessionId]: label } : old));
        }
      }),
    [bridge],
  );

  useEffect(() => {
    let cancelled = false;
    // Never rejects: each lookup that fails gives its own label.
    const loadLabels = async () => {
      const entries = await Promise.all(
        tabs.map(async (id) => {
          try {
            return [id, sessionLabel(await bridge.invoke('sessions.info', { id }))] as const;
          } catch {
            return [id, `Session ${id.slice(0, 8)} (unavailable)`] as const;
          }
        }),
      );
      if (!cancelled) setLabels(Object.fromEntries(entries));
    };
    const timer = setTimeout(() => void loadLabels(), 100);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [bridge, tabs]);

  return labels;
}
