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

export function useSessionList(bridge: LoomBridge, query: string, includeArchived: boolean) {
  const [items, setItems] = useState<SidebarItem[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const requestNo = useRef(0);

  const fetchNow = useCallback(async () => {
    const mine = ++requestNo.current;
    try {
      const text = query.trim();
      const result: SidebarItem[] = text
        ? ((await bridge.invoke('sessions.search', { query: text, includeArchived, limit: SEARCH_LIMIT })) as SearchHit[])
        : await bridge.invoke('sessions.list', { includeArchived });
      if (mine !== requestNo.current) return;
      setItems(result);
      setError(null);
    } catch (err) {
      if (mine === requestNo.current) setError((err as Error).message);
    } finally {
      if (mine === requestNo.current) setLoaded(true);
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
