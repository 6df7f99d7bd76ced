/**
 * The sidebar's data, a page at a time (docs/DESIGN.md#sidebar-paging): the sessions
 * newest first, fetched by keyset as the user scrolls, or, with a query, the full-text
 * hits with their snippets, fetched by offset. A session's change event (from this
 * window, another one, or the `loom` command) carries the session as it is now and is
 * applied to the rows loaded so far; no list is fetched again, except the first page
 * after the event stream was down (events may have been missed). With a project chosen in
 * the filter, only that project's sessions are fetched, and events keep to them. The list
 * comes a page of families at a time, each whole (a conversation and its branches), with
 * each session's family, so the sidebar folds them (lib/family-rows.ts); search hits do not.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { isUnstarted } from '../../shared/message-count';
import type { BridgeEvent, LoomBridge, SearchScope, SessionSearchHit } from '../../shared/contract';
import type { SessionCursor, SessionMeta } from '../../shared/types';
import { errorMessage } from '../lib/errors';

export type SidebarItem = SessionMeta & Partial<Pick<SessionSearchHit, 'snippet' | 'message_index' | 'team'>>;
type SessionEvent = Extract<BridgeEvent, { type: 'session_changed' | 'session_deleted' }>;

const SEARCH_DEBOUNCE_MS = 120;
const LIST_PAGE = 100;
const SEARCH_PAGE = 50;

interface ListState {
  /** The search the rows answer ('' for the list): until a new search's first page arrives, the rows are the last one's. */
  query: string;
  items: SidebarItem[];
  /** More pages follow the loaded rows. */
  more: boolean;
  loaded: boolean;
  error: string | null;
  /** How many sub-agents each listed session has, for those that have any. */
  childCounts: Record<string, number>;
  /** Each listed session's family (SessionPage.families), kept for the sessions events bring too. */
  families: Record<string, string>;
}

const EMPTY: ListState = { query: '', items: [], more: false, loaded: false, error: null, childCounts: {}, families: {} };

interface Page {
  items: SidebarItem[];
  more: boolean;
  childCounts: Record<string, number>;
  families: Record<string, string>;
  /** Where the next page of the list starts (the store's cursor over families); null for search hits and the last page. */
  next: SessionCursor | null;
}

function isSessionEvent(event: BridgeEvent): event is SessionEvent {
  return event.type === 'session_changed' || event.type === 'session_deleted';
}

/**
 * `scope`: where a search looks ('team': the sync hub); the list itself is always this device's.
 * `project`: only the sessions of that project folder (null: all); the hub's search knows no folders.
 */
export function useSessionList(bridge: LoomBridge, query: string, includeArchived: boolean, scope: SearchScope = 'local', project: string | null = null) {
  const [state, setState] = useState<ListState>(EMPTY);
  const text = query.trim();
  /** Bumped whenever what is listed changes: answers to older requests are dropped. */
  const generation = useRef(0);
  const loading = useRef(false);
  /** Search hits the server has given so far (the next page's offset). */
  const hitsFetched = useRef(0);
  /** The store's cursor after the families loaded so far. */
  const cursor = useRef<SessionCursor | null>(null);
  const latest = useRef(state);
  latest.current = state;
  /** Changes heard while a first page is on its way: its answer may predate them. Null: none on its way. */
  const heard = useRef<SessionEvent[] | null>(null);

  const fetchPage = useCallback(
    async (first: boolean) => {
      if (loading.current && !first) return;
      const mine = first ? ++generation.current : generation.current;
      loading.current = true;
      if (first) heard.current = [];
      try {
        const filter = { includeArchived, scope, project };
        const page = await (first ? firstPage(bridge, text, filter) : nextPage(bridge, text, filter, cursor.current, hitsFetched.current));
        if (mine !== generation.current) return;
        hitsFetched.current = (first ? 0 : hitsFetched.current) + page.items.length;
        cursor.current = page.next;
        const missed = (first && heard.current) || [];
        if (first) heard.current = null;
        setState((now) => {
          const items = first ? page.items : appendPage(now.items, page.items);
          const families = missed.reduce(withFamilyOf, first ? page.families : { ...now.families, ...page.families });
          return {
            query: text,
            items: missed.reduce((list, event) => applyEvent(list, event, text, includeArchived, !page.more, project, families), items),
            more: page.more,
            loaded: true,
            error: null,
            childCounts: first ? page.childCounts : { ...now.childCounts, ...page.childCounts },
            families,
          };
        });
      } catch (err) {
        if (first && mine === generation.current) heard.current = null;
        if (mine === generation.current) setState((now) => ({ ...now, more: false, loaded: true, error: errorMessage(err) }));
      } finally {
        if (mine === generation.current) loading.current = false;
      }
    },
    [bridge, text, includeArchived, scope, project],
  );

  useEffect(() => {
    // fetchPage reports its own failures in the list's error state.
    const timer = setTimeout(() => void fetchPage(true), text ? SEARCH_DEBOUNCE_MS : 0);
    return () => clearTimeout(timer);
  }, [fetchPage, text]);

  useEffect(() => {
    const off = bridge.onEvent((event) => {
      // A child started (or ended): its parent's count is read again, whatever the events before said.
      if (event.type === 'subagent') void countChildren(bridge, event.sessionId, setState);
      if (!isSessionEvent(event)) return;
      heard.current?.push(event);
      setState((now) => {
        const families = withFamilyOf(now.families, event);
        return { ...now, families, items: applyEvent(now.items, event, now.query, includeArchived, !now.more, project, families) };
      });
    });
    const offReconnect = bridge.onReconnect(() => void fetchPage(true));
    return () => {
      off();
      offReconnect();
    };
  }, [bridge, fetchPage, text, includeArchived, project]);

  const loadMore = useCallback(() => {
    if (latest.current.more && !loading.current) void fetchPage(false);
  }, [fetchPage]);

  // A new session is listed from its first message on (docs/DESIGN.md#the-sidebar).
  const items = useMemo(() => state.items.filter((item) => !isUnstarted(item)), [state.items]);
  return { ...state, items, loadMore };
}

/** What a page asks for besides its place. */
interface Filter {
  includeArchived: boolean;
  scope: SearchScope;
  project: string | null;
}

function firstPage(bridge: LoomBridge, text: string, filter: Filter): Promise<Page> {
  if (text) return searchPage(bridge, text, filter, 0);
  return listPage(bridge, filter, undefined);
}

function nextPage(bridge: LoomBridge, text: string, filter: Filter, after: SessionCursor | null, hitsFetched: number): Promise<Page> {
  // The pinned families all come with the first page: the next one follows the store's cursor over the others.
  return text ? searchPage(bridge, text, filter, hitsFetched) : listPage(bridge, filter, after ?? undefined);
}

/**
 * The families with that of the session an event brings: known already, or its parent's
 * (a new branch of a listed conversation), else its own. A branch whose parent is not
 * listed either stands alone until the list is read again.
 */
function withFamilyOf(families: Record<string, string>, event: SessionEvent): Record<string, string> {
  if (event.type !== 'session_changed' || families[event.sessionId] !== undefined) return families;
  const parent = event.meta.parent_id;
  return { ...families, [event.sessionId]: (parent !== null && families[parent]) || event.sessionId };
}

async function countChildren(bridge: LoomBridge, parentId: string, setState: (update: (now: ListState) => ListState) => void): Promise<void> {
  const children = await bridge.invoke('sessions.children', { id: parentId }).catch(() => null);
  if (children) setState((now) => ({ ...now, childCounts: { ...now.childCounts, [parentId]: children.length } }));
}

async function listPage(bridge: LoomBridge, { includeArchived, project }: Filter, after: SessionCursor | undefined): Promise<Page> {
  const page = await bridge.invoke('sessions.list', {
    includeArchived,
    limit: LIST_PAGE,
    ...(project !== null && { project }),
    ...(after && { after }),
  });
  return { items: page.sessions, more: page.next !== null, childCounts: page.children, families: page.families, next: page.next };
}

async function searchPage(bridge: LoomBridge, query: string, { includeArchived, scope, project }: Filter, offset: number): Promise<Page> {
  const inProject = project !== null && scope === 'local' ? { project } : {};
  const hits = await bridge.invoke('sessions.search', { query, includeArchived, scope, limit: SEARCH_PAGE, offset, ...inProject });
  // A hit's children are a hit of their own, or not: no disclosure under it.
  return { items: hits, more: hits.length === SEARCH_PAGE, childCounts: {}, families: {}, next: null };
}

function applyEvent(
  items: SidebarItem[],
  event: SessionEvent,
  text: string,
  includeArchived: boolean,
  complete: boolean,
  project: string | null,
  families: Record<string, string>,
): SidebarItem[] {
  // A session moved out of the project shown (its folder chosen again) is no longer listed.
  const shown = project === null || event.type === 'session_deleted' || event.meta.project_dir === project;
  const change: SessionEvent = shown ? event : { type: 'session_deleted', sessionId: event.sessionId, meta: event.meta };
  return text ? applyToHits(items, change, includeArchived) : applyChange(items, change, includeArchived, complete, families);
}

/** True when `a` lists before `b`: pinned first, then newer first, then the greater id (the store's order). */
function listsBefore(a: SessionMeta, b: SessionMeta): boolean {
  if (a.pinned !== b.pinned) return a.pinned;
  return a.updated_at > b.updated_at || (a.updated_at === b.updated_at && a.id > b.id);
}

/**
 * The loaded rows with one session's change applied: gone, or in its place in listing
 * order. `complete`: every session is loaded; otherwise one whose place is past the last
 * loaded row is left for the page that will bring it, unless its family is loaded (a page
 * brings whole families: no later one brings it).
 */
export function applyChange(
  items: SidebarItem[],
  event: SessionEvent,
  includeArchived: boolean,
  complete = true,
  families: Record<string, string> = {},
): SidebarItem[] {
  const rest = items.filter((item) => item.id !== event.sessionId);
  if (event.type === 'session_deleted' || (event.meta.archived && !includeArchived)) return rest.length === items.length ? items : rest;
  const at = rest.findIndex((item) => listsBefore(event.meta, item));
  const family = families[event.sessionId];
  const familyLoaded = family !== undefined && rest.some((item) => families[item.id] === family);
  if (at < 0) return complete || familyLoaded ? [...rest, event.meta] : rest;
  return [...rest.slice(0, at), event.meta, ...rest.slice(at)];
}

/** Search hits keep their rank and snippet: a change updates the session shown, a deletion removes it. */
export function applyToHits(hits: SidebarItem[], event: SessionEvent, includeArchived: boolean): SidebarItem[] {
  const at = hits.findIndex((hit) => hit.id === event.sessionId);
  const found = hits[at]; // undefined when no hit is that session
  if (found === undefined) return hits;
  if (event.type === 'session_deleted' || (event.meta.archived && !includeArchived)) return hits.filter((hit) => hit.id !== event.sessionId);
  // A team hit's session that just arrived (a sync) is on this device from now on.
  const team = teamAsSynced(found);
  return hits.map((hit, i) => (i === at ? { ...event.meta, snippet: hit.snippet, message_index: hit.message_index, ...team } : hit));
}

function teamAsSynced(item: SidebarItem): Pick<SidebarItem, 'team'> {
  return item.team ? { team: { ...item.team, synced: true } } : {};
}

/** A later page after the rows loaded: a session an event already placed is not listed twice. */
export function appendPage(items: SidebarItem[], page: SidebarItem[]): SidebarItem[] {
  const shown = new Set(items.map((item) => item.id));
  return [...items, ...page.filter((item) => !shown.has(item.id))];
}
