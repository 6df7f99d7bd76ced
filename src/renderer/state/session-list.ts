/**
 * The sidebar's data: every session (newest first) or, with a query, the full-text hits
 * with their snippets. A session's change event (from this window, another one, or the
 * `loom` command) carries the session as it is now and is applied to the list in place;
 * only a search, or a change no single session describes, is fetched again (at most a few
 * times a second, the newest request always winning over a slower earlier one).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { BridgeEvent, LoomBridge } from '../../shared/contract';
import type { SessionMeta } from '../../shared/types';

export type SidebarItem = SessionMeta & { snippet?: string };
type SessionEvent = Extract<BridgeEvent, { type: 'session_changed' | 'session_deleted' }>;

const SEARCH_DEBOUNCE_MS = 150;
const REFRESH_THROTTLE_MS = 250;
const SEARCH_LIMIT = 200;
const FIRST_PAGE = 100;

export function useSessionList(bridge: LoomBridge, query: string, includeArchived: boolean) {
  const [items, setItems] = useState<SidebarItem[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const requestNo = useRef(0);
  /** Changes heard since the newest request went out: its answer may predate them. */
  const heard = useRef<SessionEvent[]>([]);

  const fetchNow = useCallback(async () => {
    const mine = ++requestNo.current;
    heard.current = [];
    const show = (result: SidebarItem[]) => {
      if (mine !== requestNo.current) return false;
      setItems(heard.current.reduce((list, event) => applyChange(list, event, includeArchived), result));
      setError(null);
      setLoaded(true);
      return true;
    };
    try {
      const text = query.trim();
      if (text) {
        show(await bridge.invoke('sessions.search', { query: text, includeArchived, limit: SEARCH_LIMIT }));
        return;
      }
      // The first screenful at once, then the whole list (thousands of rows) behind it.
      const head = await bridge.invoke('sessions.list', { includeArchived, limit: FIRST_PAGE });
      if (show(head) && head.length === FIRST_PAGE) show(await bridge.invoke('sessions.list', { includeArchived }));
    } catch (err) {
      if (mine === requestNo.current) {
        setError((err as Error).message);
        setLoaded(true);
      }
    }
  }, [bridge, query, includeArchived]);

  useEffect(() => {
    // fetchNow reports its own failures in the list's error state.
    const timer = setTimeout(() => void fetchNow(), query.trim() ? SEARCH_DEBOUNCE_MS : 0);
    return () => clearTimeout(timer);
  }, [fetchNow, query]);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const searching = query.trim().length > 0;
    const off = bridge.onEvent((event) => {
      if (event.type !== 'session_changed' && event.type !== 'session_deleted') return;
      if (!searching) {
        heard.current.push(event);
        setItems((items) => applyChange(items, event, includeArchived));
        return;
      }
      if (timer) return;
      timer = setTimeout(() => {
        timer = null;
        void fetchNow();
      }, REFRESH_THROTTLE_MS);
    });
    // Events missed while the stream was down are not replayed: fetch the list again.
    const offReconnect = bridge.onReconnect(() => void fetchNow());
    return () => {
      off();
      offReconnect();
      if (timer) clearTimeout(timer);
    };
  }, [bridge, fetchNow, query, includeArchived]);

  return { items, loaded, error, refresh: fetchNow };
}

/** The list with one session's change applied: gone, or in its place by last update (newest first). */
export function applyChange(items: SidebarItem[], event: SessionEvent, includeArchived: boolean): SidebarItem[] {
  const rest = items.filter((item) => item.id !== event.sessionId);
  if (event.type === 'session_deleted' || (event.meta.archived && !includeArchived)) return rest.length === items.length ? items : rest;
  const at = rest.findIndex((item) => item.updated_at < event.meta.updated_at);
  return at < 0 ? [...rest, event.meta] : [...rest.slice(0, at), event.meta, ...rest.slice(at)];
}
