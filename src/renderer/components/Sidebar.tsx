/**
 * The session sidebar: newest first with title (or listing summary) and time, a
 * full-text search with snippets (on this device, or the team's on the sync hub), a switch
 * for archived sessions, a filter by project folder, per-session actions, drag-export, and the sync's status line. Virtualised and paged: 100,000 sessions render as the few rows on
 * screen, fetched a page at a time as the user scrolls. The list (not search hits, which are
 * ranked) is grouped: Pinned, Today, Yesterday, Previous 7 days, Older, and folds each
 * conversation and its branches into one row with a count, expanded in place (lib/family-rows.ts).
 * Collapsible to a narrow rail.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import type { ExportFormat, SearchScope, SyncStatus } from '../../shared/contract';
import { messageCountText } from '../../shared/message-count';
import type { SessionMeta } from '../../shared/types';
import { useBridge } from '../bridge/context';
import { groupHeading } from '../lib/date-groups';
import { branchCount, familyRows } from '../lib/family-rows';
import { relativeTime, sessionLabel } from '../lib/format';
import { familyAttention, type AttentionMarker } from '../state/attention';
import { useDragExport } from '../state/drag-export';
import { useSessionList, type SidebarItem } from '../state/session-list';
import { AttentionBadge } from './AttentionBadge';
import { ProjectFilter } from './ProjectFilter';
import { SessionMenu } from './SessionMenu';
import { SidebarChildren } from './SidebarChildren';
import { Snippet } from './Snippet';
import { SyncStatusLine } from './SyncStatusLine';

export type SessionAction = 'open' | 'rename' | 'fork' | 'pin' | 'unpin' | 'archive' | 'unarchive' | `export:${ExportFormat}` | 'delete' | 'info' | 'share';

interface SidebarProps {
  searchRef: RefObject<HTMLInputElement | null>;
  activeId: string | null;
  /** The open sessions' markers (working, waiting for an approval or an answer), shown on their rows too. */
  markers: ReadonlyMap<string, AttentionMarker>;
  onAction: (action: SessionAction, meta: SessionMeta) => void;
  /** Opens a search hit's session scrolled to the message that matched. */
  onOpenAt: (meta: SessionMeta, messageIndex: number) => void;
  /** A team search hit whose session has not reached this device yet. */
  onOpenUnsynced: (meta: SessionMeta) => void;
  syncStatus: SyncStatus | null;
  collapsed: boolean;
  onToggleCollapsed: () => void;
  onNewSession: () => void;
  onImport: (file: File) => void;
  /** Opens the "Import from…" dialog: another agent's sessions. */
  onImportFrom: () => void;
  onSettings: () => void;
  /** Opens the Trash: deleted sessions, to restore or purge. */
  onTrash: () => void;
  onError: (message: string) => void;
}

const ROW_HEIGHT = 64;
const SNIPPET_ROW_HEIGHT = 96;
/** A group's heading, drawn in its first row. */
const HEADING_HEIGHT = 28;
/** Rows before the end of the loaded ones at which the next page is asked for. */
const LOAD_AHEAD_ROWS = 20;
const BODY_ID = 'session-sidebar-body';

export function Sidebar(props: SidebarProps) {
  const { activeId, onAction } = props;
  const bridge = useBridge();
  const [query, setQuery] = useState('');
  const [showArchived, setShowArchived] = useState(false);
  const [menu, setMenu] = useState<{ meta: SessionMeta; x: number; y: number; opener: HTMLElement | null } | null>(null);
  const syncing = props.syncStatus !== null && props.syncStatus.state !== 'off';
  const [chosenScope, setScope] = useState<SearchScope>('local');
  const scope = syncing ? chosenScope : 'local';
  const [project, setProject] = useState<string | null>(null);
  const list = useSessionList(bridge, query, showArchived, scope, project);
  const scroller = useRef<HTMLDivElement>(null);
  const importInput = useRef<HTMLInputElement>(null);
  /** Whether the rows shown are search hits (a new search's rows replace the old ones when they arrive). */
  const searching = list.query.length > 0;
  /** The families expanded in place, by family id. */
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const setFamilyExpanded = (family: string, open: boolean) =>
    setExpanded((now) => {
      const next = new Set(now);
      if (open) next.add(family);
      else next.delete(family);
      return next;
    });
  const items = useMemo(() => familyRows(list.items, list.families, expanded, !searching), [list.items, list.families, expanded, searching]);
  const heads = useMemo(() => items.flatMap((row) => (row.kind === 'family' ? [row.item] : [])), [items]);
  /** The group heading drawn in a row, if any: search hits are ranked, so not grouped; a family's branches are in its group. */
  const now = new Date();
  const headingAt = (index: number) => {
    const row = items[index];
    return searching || row?.kind !== 'family' ? null : groupHeading(heads, row.position, now);
  };

  // One row past the loaded ones while more follow: it says so, and scrolling to it loads them.
  const virtualizer = useVirtualizer({
    count: items.length + (list.more ? 1 : 0),
    getScrollElement: () => scroller.current,
    estimateSize: (index) => (searching ? SNIPPET_ROW_HEIGHT : ROW_HEIGHT + (headingAt(index) ? HEADING_HEIGHT : 0)),
    getItemKey: (index) => {
      const row = items[index];
      return row ? `${row.kind}:${row.item.id}` : 'more';
    },
    overscan: 8,
  });
  const rows = virtualizer.getVirtualItems();
  const lastRow = rows.at(-1)?.index ?? 0;
  const { loadMore } = list;
  useEffect(() => {
    if (lastRow >= items.length - LOAD_AHEAD_ROWS) loadMore();
  }, [lastRow, items.length, loadMore]);

  /**
   * The list is one Tab stop (a roving tabindex): the row last focused, or the first one on
   * screen when that one is scrolled away; the arrow keys, Home and End move between rows.
   * As in a tree, ArrowRight expands a folded family (then steps into it) and ArrowLeft
   * folds it (from a branch: back to its row); on a row with no branches ArrowRight opens
   * the row's actions.
   */
  const [current, setCurrent] = useState(0);
  const focusAfterRender = useRef<number | null>(null);
  const tabStop = rows.some((row) => row.index === current) ? current : (rows[0]?.index ?? 0);
  useEffect(() => {
    const index = focusAfterRender.current;
    const button = index === null ? null : scroller.current?.querySelector<HTMLElement>(`[data-index="${index}"] .session-open`);
    if (!button) return;
    focusAfterRender.current = null;
    button.focus();
  });
  const moveTo = (index: number) => {
    const to = Math.max(0, Math.min(items.length - 1, index));
    setCurrent(to);
    focusAfterRender.current = to;
    virtualizer.scrollToIndex(to);
  };
  const openMenu = (item: SidebarItem, actions: HTMLElement) => {
    const box = actions.getBoundingClientRect();
    setMenu({ meta: item, x: box.left, y: box.bottom, opener: actions });
  };
  const onListKey = (event: KeyboardEvent<HTMLUListElement>) => {
    const row = (event.target as HTMLElement).closest<HTMLElement>('li[data-index]');
    const index = Number(row?.dataset.index);
    const shown = items[index];
    if (!row || shown === undefined) return;
    const actions = row.querySelector<HTMLElement>('.session-actions');
    const folds = shown.kind === 'family' && shown.members.length > 1;
    if (event.key === 'ArrowDown') moveTo(index + 1);
    else if (event.key === 'ArrowUp') moveTo(index - 1);
    else if (event.key === 'Home') moveTo(0);
    else if (event.key === 'End') moveTo(items.length - 1);
    else if (event.key === 'ArrowRight' && folds) {
      if (shown.expanded) moveTo(index + 1);
      else setFamilyExpanded(shown.family, true);
    } else if (event.key === 'ArrowLeft' && shown.kind === 'branch') moveTo(items.findIndex((r) => r.kind === 'family' && r.family === shown.family));
    else if (event.key === 'ArrowLeft' && folds && shown.expanded) setFamilyExpanded(shown.family, false);
    else if ((event.key === 'ArrowRight' || event.key === 'ContextMenu' || (event.key === 'F10' && event.shiftKey)) && actions) openMenu(shown.item, actions);
    else return;
    event.preventDefault();
  };

  const open = (item: SidebarItem) => {
    if (item.team && !item.team.synced) props.onOpenUnsynced(item);
    else if (searching && typeof item.message_index === 'number') props.onOpenAt(item, item.message_index);
    else if (searching && !item.team) void openAtFirstMatch(item);
    else onAction('open', item);
  };
  /**
   * A hit its title or summary ranked names no message: its first matching message, if any,
   * is found in the session itself (as find in session does), so the hit does not open at the
   * bottom when a message matches too. Where none does, or the find fails, it opens as usual.
   */
  const openAtFirstMatch = async (item: SidebarItem) => {
    const first = await bridge.invoke('sessions.find', { id: item.id, query: list.query }).then(
      ({ matches }) => matches[0],
      () => undefined,
    );
    if (first === undefined) onAction('open', item);
    else props.onOpenAt(item, first);
  };

  const dragExport = useDragExport(props.onError);

  return (
    <aside className={`sidebar${props.collapsed ? ' collapsed' : ''}`} aria-label="Sessions">
      <div className="sidebar-head">
        <button
          type="button"
          className="icon"
          aria-label="Session sidebar"
          title={`${props.collapsed ? 'Show' : 'Hide'} the session sidebar (Alt+B)`}
          aria-keyshortcuts="Alt+B"
          aria-expanded={!props.collapsed}
          aria-controls={BODY_ID}
          onClick={props.onToggleCollapsed}
        >
          {props.collapsed ? '»' : '«'}
        </button>
        {!props.collapsed && <span className="brand">Loom</span>}
        <button type="button" className="icon" aria-label="New session" title="New session (Alt+N)" aria-keyshortcuts="Alt+N" onClick={props.onNewSession}>
          +
        </button>
        {!props.collapsed && (
          <button type="button" className="icon" aria-label="Settings" title="Settings" onClick={props.onSettings}>
            ⚙
          </button>
        )}
      </div>
      <div id={BODY_ID} className="sidebar-body" hidden={props.collapsed}>
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
        {syncing && <ScopeSwitch scope={scope} onScope={setScope} />}
        <label className="switch">
          <input type="checkbox" role="switch" checked={showArchived} onChange={(e) => setShowArchived(e.target.checked)} />
          <span>Show archived</span>
        </label>
        <ProjectFilter value={project} onChange={setProject} />
        {list.error && (
          <p className="sidebar-note" role="alert">
            {list.error}
          </p>
        )}
        {list.loaded && list.items.length === 0 && !list.error && <p className="sidebar-note">{searching ? 'No session matches.' : 'No sessions yet.'}</p>}
        <div ref={scroller} className="session-scroller">
          <ul
            className="session-list"
            aria-label={searching ? 'Search results' : 'Session list'}
            aria-keyshortcuts="ArrowUp ArrowDown Home End ArrowRight ArrowLeft"
            style={{ height: virtualizer.getTotalSize() }}
            onKeyDown={onListKey}
          >
            {rows.map((row) => {
              const shown = items[row.index];
              if (!shown) {
                return (
                  <li
                    key={row.key}
                    data-index={row.index}
                    ref={virtualizer.measureElement}
                    className="session-row more"
                    style={{ transform: `translateY(${row.start}px)` }}
                  >
                    {list.error ? '' : 'Loading more…'}
                  </li>
                );
              }
              const { item } = shown;
              const label = sessionLabel(item);
              const members = shown.kind === 'family' ? shown.members : [item];
              const marker = familyAttention(members.map((member) => props.markers.get(member.id)));
              const heading = headingAt(row.index);
              const childCount = list.childCounts[item.id] ?? 0;
              return (
                <li
                  key={row.key}
                  data-index={row.index}
                  ref={virtualizer.measureElement}
                  className={`session-row${shown.kind === 'branch' ? ' branch' : ''}${heading ? ' group-start' : ''}${item.id === activeId ? ' active' : ''}${item.archived ? ' archived' : ''}`}
                  style={{ transform: `translateY(${row.start}px)` }}
                  draggable
                  onPointerDown={() => dragExport.prepare(item.id)}
                  onDragStart={(event) => dragExport.start(event, item.id)}
                  onContextMenu={(event) => {
                    event.preventDefault();
                    setMenu({ meta: item, x: event.clientX, y: event.clientY, opener: event.currentTarget.querySelector<HTMLElement>('.session-actions') });
                  }}
                >
                  {heading && <h2 className="session-group">{heading}</h2>}
                  <button
                    type="button"
                    className="session-open"
                    title={label}
                    tabIndex={row.index === tabStop ? 0 : -1}
                    onFocus={() => setCurrent(row.index)}
                    onClick={() => open(item)}
                    aria-current={item.id === activeId ? 'page' : undefined}
                  >
                    <span className="session-title-line">
                      <span className="session-title">{label}</span>
                      {marker && <AttentionBadge marker={marker} />}
                    </span>
                    <span className="session-time">
                      {item.team ? `${item.team.owner} · ` : ''}
                      {item.pinned ? 'pinned · ' : ''}
                      {item.archived ? 'archived · ' : ''}
                      {relativeTime(item.updated_at)} · {item.team && !item.team.synced ? 'not on this device yet' : messageCountText(item)}
                    </span>
                    {item.snippet && <Snippet text={item.snippet} />}
                  </button>
                  <button
                    type="button"
                    className="icon session-actions"
                    aria-label={`Actions for ${label}`}
                    aria-haspopup="menu"
                    tabIndex={-1}
                    onClick={(event) => openMenu(item, event.currentTarget)}
                  >
                    ⋯
                  </button>
                  {shown.kind === 'family' && members.length > 1 && (
                    <FamilyToggle
                      label={label}
                      count={members.length}
                      expanded={shown.expanded}
                      onToggle={() => setFamilyExpanded(shown.family, !shown.expanded)}
                    />
                  )}
                  {childCount > 0 && <SidebarChildren label={label} parentId={item.id} count={childCount} onOpen={(child) => onAction('open', child)} />}
                </li>
              );
            })}
          </ul>
        </div>
        <div className="sidebar-foot">
          <SyncStatusLine status={props.syncStatus} />
          <button type="button" onClick={() => importInput.current?.click()}>
            Import session…
          </button>
          <button type="button" title="Import sessions from Claude Code, Codex, pi or opencode" onClick={props.onImportFrom}>
            Import from…
          </button>
          <button type="button" title="Deleted sessions, to restore or purge" onClick={props.onTrash}>
            Trash
          </button>
          <input
            ref={importInput}
            type="file"
            accept=".loom,.json,application/json"
            aria-label="Session export file to import"
            hidden
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (file) props.onImport(file);
              e.target.value = '';
            }}
          />
        </div>
      </div>
      {menu && <SessionMenu meta={menu.meta} x={menu.x} y={menu.y} opener={menu.opener} canShare={syncing} onAction={onAction} onClose={() => setMenu(null)} />}
    </aside>
  );
}

/**
 * A folded family's count and disclosure: outside the list's Tab order (ArrowRight and
 * ArrowLeft on the row do the same), named with the row it folds.
 */
function FamilyToggle({ label, count, expanded, onToggle }: { label: string; count: number; expanded: boolean; onToggle: () => void }) {
  return (
    <div className="session-branches">
      <button
        type="button"
        className="session-branches-toggle"
        tabIndex={-1}
        aria-expanded={expanded}
        aria-label={`${branchCount(count)} of ${label}`}
        onClick={onToggle}
      >
        <span aria-hidden="true">{expanded ? '▾' : '▸'}</span> {branchCount(count)}
      </button>
    </div>
  );
}

/** Where the search looks: this device's store, or the team's sessions on the sync hub. */
function ScopeSwitch({ scope, onScope }: { scope: SearchScope; onScope: (scope: SearchScope) => void }) {
  return (
    <div className="scope-switch" role="radiogroup" aria-label="Search scope">
      {(['local', 'team'] as const).map((value) => (
        <label key={value}>
          <input type="radio" name="search-scope" value={value} checked={scope === value} onChange={() => onScope(value)} />
          <span>{value === 'local' ? 'This device' : 'Team'}</span>
        </label>
      ))}
    </div>
  );
}
