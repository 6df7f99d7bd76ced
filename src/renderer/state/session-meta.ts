/** The session-metadata cache for components: one per window, provided at the root. */
import { createContext, useContext, useEffect, useState, useSyncExternalStore } from 'react';
import type { SessionInfo } from '../../shared/contract';
import type { SessionMeta } from '../../shared/types';
import type { SessionMetaCache } from './session-meta-cache';
import { errorMessage } from '../lib/errors';

export const SessionMetaContext = createContext<SessionMetaCache | null>(null);

export function useSessionMetaCache(): SessionMetaCache {
  const cache = useContext(SessionMetaContext);
  if (!cache) throw new Error('The session-metadata cache is used outside its provider.');
  return cache;
}

/** What is known of the session, kept current; `missing` when the engine does not know it. */
export function useSessionMeta(id: string): { meta: SessionMeta | undefined; missing: boolean } {
  const cache = useSessionMetaCache();
  useSyncExternalStore(cache.subscribe, cache.getVersion);
  useEffect(() => cache.request(id), [cache, id]);
  return { meta: cache.meta(id), missing: cache.isMissing(id) };
}

/** The session's full info (compactions, usage), fetched again after each change to it. */
export function useSessionInfo(id: string): { info: SessionInfo | null; error: string | null } {
  const cache = useSessionMetaCache();
  const { meta } = useSessionMeta(id);
  const [state, setState] = useState<{ info: SessionInfo | null; error: string | null }>({ info: null, error: null });
  useEffect(() => {
    let live = true;
    cache.info(id).then(
      (info) => live && setState({ info, error: null }),
      (err: unknown) => live && setState((old) => ({ ...old, error: errorMessage(err) })),
    );
    return () => {
      live = false;
    };
  }, [cache, id, meta]);
  return state;
}
