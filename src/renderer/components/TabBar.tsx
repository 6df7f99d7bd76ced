/**
 * One tab per open session; the label follows the session's title as it changes, and a
 * marker (a sign and words, not a colour alone, state/attention.ts) tells a tab at work or
 * waiting for the user from an idle one, for every open tab. When the tabs do not fit, the
 * strip scrolls (‹ ›) and a menu lists every tab with its marker; a tab out of view that
 * waits for the user puts its marker on that menu's button, so it cannot wait unseen.
 */
import { useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react';
import { sessionLabel } from '../lib/format';
import { hiddenAttention, type AttentionMarker } from '../state/attention';
import { useSessionMeta } from '../state/session-meta';
import { tabsOutOfView } from '../state/tabs';
import { AttentionBadge } from './AttentionBadge';
import { MenuButton } from './MenuButton';

interface TabBarProps {
  tabs: string[];
  /** Each open session's marker (state/attention.ts useAttentionMarkers); an idle one has none. */
  markers: ReadonlyMap<string, AttentionMarker>;
  active: string | null;
  onSelect: (id: string) => void;
  onClose: (id: string) => void;
  onNew: () => void;
}

/** What the strip shows of its tabs: whether they overflow it, and which are out of view. */
interface StripView {
  overflows: boolean;
  atStart: boolean;
  atEnd: boolean;
  hidden: string[];
}

const ALL_IN_VIEW: StripView = { overflows: false, atStart: true, atEnd: true, hidden: [] };

export function TabBar({ tabs, markers, active, onSelect, onClose, onNew }: TabBarProps) {
  const list = useRef<HTMLDivElement>(null);
  const view = useStripView(list, tabs);
  // A tab opened or chosen elsewhere (a fork, the sidebar, a shortcut, the list of tabs) may lie outside the scrolled strip.
  useEffect(() => {
    list.current?.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [active, tabs]);
  const scroll = (direction: -1 | 1) => {
    const el = list.current;
    el?.scrollBy({ left: direction * el.clientWidth * 0.8, behavior: 'smooth' });
  };
  const calling = hiddenAttention(view.hidden.map((id) => markers.get(id)));
  return (
    <div className="tabbar">
      {view.overflows && (
        <button type="button" className="icon tab-scroll" aria-label="Scroll tabs left" disabled={view.atStart} onClick={() => scroll(-1)}>
          ‹
        </button>
      )}
      <div ref={list} role="tablist" aria-label="Open sessions" className="tabs">
        {tabs.map((id) => (
          <Tab key={id} id={id} marker={markers.get(id) ?? null} active={id === active} onSelect={onSelect} onClose={onClose} />
        ))}
      </div>
      {view.overflows && (
        <>
          <button type="button" className="icon tab-scroll" aria-label="Scroll tabs right" disabled={view.atEnd} onClick={() => scroll(1)}>
            ›
          </button>
          <MenuButton
            menuLabel="Open tabs"
            button={{
              className: 'tab-list-button',
              title: calling ? `All tabs: one out of view ${calling.text}` : 'All tabs',
              'aria-label': calling ? `All tabs (one out of view ${calling.text})` : 'All tabs',
            }}
            items={tabs.map((id) => ({
              key: id,
              label: <TabListItem id={id} marker={markers.get(id) ?? null} />,
              checked: id === active,
              // Shown as a click on its tab shows it: the message box takes the focus.
              onSelect: () => onSelect(id),
            }))}
          >
            <span aria-hidden="true">▾</span>
            {calling && <AttentionBadge marker={calling} />}
          </MenuButton>
        </>
      )}
      <button type="button" className="icon" aria-label="New tab with a new session" title="New session (Alt+N)" onClick={onNew}>
        +
      </button>
    </div>
  );
}

/** Measures the strip when it scrolls, resizes, or its tabs change (added, closed, renamed). */
function useStripView(list: RefObject<HTMLDivElement | null>, tabs: string[]): StripView {
  const [view, setView] = useState<StripView>(ALL_IN_VIEW);
  useLayoutEffect(() => {
    const el = list.current;
    if (!el) return;
    const measure = () => {
      const next = measureStrip(el);
      setView((previous) => sameView(previous, next));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    for (const tab of el.children) observer.observe(tab);
    el.addEventListener('scroll', measure, { passive: true });
    return () => {
      observer.disconnect();
      el.removeEventListener('scroll', measure);
    };
  }, [list, tabs]);
  return view;
}

function measureStrip(el: HTMLElement): StripView {
  const overflows = el.scrollWidth > el.clientWidth + 1;
  if (!overflows) return ALL_IN_VIEW;
  const strip = el.getBoundingClientRect();
  const spans = [...el.querySelectorAll<HTMLElement>('[data-tab-id]')].map((tab) => {
    const box = tab.getBoundingClientRect();
    return { id: tab.dataset.tabId ?? '', left: box.left, right: box.right };
  });
  return {
    overflows,
    atStart: el.scrollLeft <= 1,
    atEnd: el.scrollLeft + el.clientWidth >= el.scrollWidth - 1,
    hidden: tabsOutOfView(strip, spans),
  };
}

/** The previous view when nothing changed, so a scroll that hides no new tab renders nothing. */
function sameView(previous: StripView, next: StripView): StripView {
  const same =
    previous.overflows === next.overflows &&
    previous.atStart === next.atStart &&
    previous.atEnd === next.atEnd &&
    previous.hidden.join(' ') === next.hidden.join(' ');
  return same ? previous : next;
}

interface TabProps {
  id: string;
  marker: AttentionMarker | null;
  active: boolean;
  onSelect: (id: string) => void;
  onClose: (id: string) => void;
}

function Tab({ id, marker, active, onSelect, onClose }: TabProps) {
  const label = useTabLabel(id);
  return (
    <div className={`tab${active ? ' active' : ''}`} role="presentation" data-tab-id={id}>
      <button
        type="button"
        role="tab"
        aria-selected={active}
        className="tab-label"
        title={marker ? `${label} (${marker.text})` : label}
        aria-keyshortcuts="Delete"
        onClick={() => onSelect(id)}
        onAuxClick={(event) => event.button === 1 && onClose(id)}
        onKeyDown={(event) => {
          if (event.key === 'Delete') onClose(id);
        }}
      >
        <span className="tab-title">{label}</span>
        {marker && <AttentionBadge marker={marker} />}
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

function TabListItem({ id, marker }: { id: string; marker: AttentionMarker | null }) {
  return (
    <span className="tab-list-item">
      <span className="tab-title">{useTabLabel(id)}</span>
      {marker && <AttentionBadge marker={marker} />}
    </span>
  );
}

function useTabLabel(id: string): string {
  const { meta, missing } = useSessionMeta(id);
  return meta ? sessionLabel(meta) : `Session ${id.slice(0, 8)}${missing ? ' (unavailable)' : ''}`;
}
