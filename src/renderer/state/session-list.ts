/**
 * The sidebar's data: every session (newest first) or, with a query, the full-text hits
 * with their snippets. Refetched when the engine says sessions changed, at most a few
 * times a second, and the newest request always wins over a slower earlier one.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { LoomBridge } from '../../shared/contract';
import type { SearchHit, SessionMeta } from '../../shared/types';

export type SidebarItem = SessionMeta & { snippet?: string };

const SEARCH_DEBOUNCE_MS = 150;
const REFRESH_THROTTLE_MS = 250;
const SEARCH_LIMIT = 200;
const FIRST_PAGE = 100;

export function useSessionList(bridge: LoomBridge, query: string, includeArchived: boolean) {
  const [items, setItems] = useState<SidebarItem[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const requestNo = useRef(0);

  const fetchNow = useCallback(async () => {
    const mine = ++requestNo.current;
    const show = (result: SidebarItem[]) => {
      if (mine !== requestNo.current) return false;
      setItems(result);
      setError(null);
      setLoaded(true);
      return true;
    };
    try {
      const text = query.trim();
      if (text) {
        show((await bridge.invoke('sessions.search', { query: text, includeArchived, limit: SEARCH_LIMIT })) as SearchHit[]);
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
    const timer = setTimeout(fetchNow, query.trim() ? SEARCH_DEBOUNCE_MS : 0);
    return () => clearTimeout(timer);
  }, [fetchNow, query]);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const off = bridge.onEvent((event) => {
      if (event.type !== 'sessions_changed' || timer) return;
      timer = setTimeout(() => {
        timer = null;
        void fetchNow();
      }, REFRESH_THROTTLE_MS);
    });
    return () => {
      off();
      if (timer) clearTimeout(timer);
    };
  }, [bridge, fetchNow]);

  return { items, loaded, error, refresh: fetchNow };
}
