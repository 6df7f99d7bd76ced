/**
 * The session sidebar: newest first with title (or listing summary) and time, a
 * full-text search with snippets, a switch for archived sessions, per-session actions,
 * and drag-export. Virtualised: 10,000 sessions render as the few rows on screen.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef, useState, type DragEvent, type RefObject } from 'react';
import { exportFileName } from '../../shared/export-name';
import type { SessionMeta } from '../../shared/types';
import { downloadUrl, isDesktop } from '../bridge';
import { useBridge } from '../bridge/context';
import { relativeTime, sessionLabel } from '../lib/format';
import { useSessionList, type SidebarItem } from '../state/session-list';
import { SessionMenu } from './SessionMenu';
import { Snippet } from './Snippet';

export type SessionAction = 'open' | 'rename' | 'fork' | 'archive' | 'unarchive' | 'export' | 'delete' | 'info';

interface SidebarProps {
  searchRef: RefObject<HTMLInputElement | null>;
  activeId: string | null;
  onAction: (action: SessionAction, meta: SessionMeta) => void;
  onNewSession: () => void;
  onImport: (file: File) => void;
  onSettings: () => void;
  onError: (message: string) => void;
}

const ROW_HEIGHT = 64;
const SNIPPET_ROW_HEIGHT = 96;

export function Sidebar(props: SidebarProps) {
  const { activeId, onAction } = props;
  const bridge = useBridge();
  const [query, setQuery] = useState('');
  const [showArchived, setShowArchived] = useState(false);
  const [menu, setMenu] = useState<{ meta: SessionMeta; x: number; y: number; opener: HTMLElement | null } | null>(null);
  const list = useSessionList(bridge, query, showArchived);
  const scroller = useRef<HTMLDivElement>(null);
  const importInput = useRef<HTMLInputElement>(null);
  const searching = query.trim().length > 0;

  const virtualizer = useVirtualizer({
    count: list.items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => (searching ? SNIPPET_ROW_HEIGHT : ROW_HEIGHT),
    getItemKey: (index) => list.items[index].id,
    overscan: 8,
  });

  const onDragStart = (event: DragEvent, item: SidebarItem) => {
    if (isDesktop()) {
      // Electron drags a real temporary file: the main process starts the native drag.
      event.preventDefault();
      bridge.invoke('sessions.startDrag', { id: item.id }).catch((err: Error) => props.onError(err.message));
      return;
    }
    const url = downloadUrl(item.id);
    if (!url) return;
    const name = exportFileName(item.title ?? item.id);
    event.dataTransfer.effectAllowed = 'copy';
    event.dataTransfer.setData('DownloadURL', `application/json:${name}:${url}`);
    event.dataTransfer.setData('text/plain', name);
  };

  return (
    <aside className="sidebar" aria-label="Sessions">
      <div className="sidebar-head">
        <span className="brand">Loom</span>
        <button type="button" className="icon" aria-label="New session" title="New session (Alt+N)" aria-keyshortcuts="Alt+N" onClick={props.onNewSession}>
          +
        </button>
        <button type="button" className="icon" aria-label="Settings" title="Settings" onClick={props.onSettings}>
          ⚙
        </button>
      </div>
      <input
        ref={props.searchRef}
        className="search"
        type="search"
        placeholder="Search sessions (Ctrl+K)"
        aria-label="Search sessions"
        aria-keyshortcuts="Control+K"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
      />
      <label className="switch">
        <input type="checkbox" role="switch" checked={showArchived} onChange={(e) => setShowArchived(e.target.checked)} />
        <span>Show archived</span>
      </label>
      {list.error && (
        <p className="sidebar-note" role="alert">
          {list.error}
        </p>
      )}
      {list.loaded && list.items.length === 0 && !list.error && <p className="sidebar-note">{searching ? 'No session matches.' : 'No sessions yet.'}</p>}
      <div ref={scroller} className="session-scroller">
        <ul className="session-list" aria-label={searching ? 'Search results' : 'Session list'} style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((row) => {
            const item = list.items[row.index];
            return (
              <li
                key={row.key}
                data-index={row.index}
                ref={virtualizer.measureElement}
                className={`session-row${item.id === activeId ? ' active' : ''}${item.archived ? ' archived' : ''}`}
                style={{ transform: `translateY(${row.start}px)` }}
                draggable
                onDragStart={(event) => onDragStart(event, item)}
                onContextMenu={(event) => {
                  event.preventDefault();
                  setMenu({ meta: item, x: event.clientX, y: event.clientY, opener: event.currentTarget.querySelector<HTMLElement>('.session-actions') });
                }}
              >
                <button type="button" className="session-open" onClick={() => onAction('open', item)} aria-current={item.id === activeId ? 'page' : undefined}>
                  <span className="session-title">{sessionLabel(item)}</span>
                  <span className="session-time">
                    {item.archived ? 'archived · ' : ''}
                    {relativeTime(item.updated_at)} · {item.message_count} messages
                  </span>
                  {item.snippet && <Snippet text={item.snippet} />}
                </button>
                <button
                  type="button"
                  className="icon session-actions"
                  aria-label={`Actions for ${sessionLabel(item)}`}
                  aria-haspopup="menu"
                  onClick={(event) => {
                    const box = event.currentTarget.getBoundingClientRect();
                    setMenu({ meta: item, x: box.left, y: box.bottom, opener: event.currentTarget });
                  }}
                >
                  ⋯
                </button>
              </li>
            );
          })}
        </ul>
      </div>
      <div className="sidebar-foot">
        <button type="button" onClick={() => importInput.current?.click()}>
          Import session…
        </button>
        <input
          ref={importInput}
          type="file"
          accept=".json,application/json"
          aria-label="Session export file to import"
          hidden
          onChange={(e) => {
            const file = e.target.files?.[0];
            if (file) props.onImport(file);
            e.target.value = '';
          }}
        />
      </div>
      {menu && <SessionMenu meta={menu.meta} x={menu.x} y={menu.y} opener={menu.opener} onAction={onAction} onClose={() => setMenu(null)} />}
    </aside>
  );
}
