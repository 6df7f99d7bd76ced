/**
 * The open tabs: an ordered list of session ids and the active one. Opening a session
 * that is already open focuses its tab. Saved (debounced) in the settings so the same
 * tabs come back after a restart or a reload.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { LoomBridge, Settings } from '../../shared/contract';
import { isUnstarted } from '../../shared/message-count';
import { useBridge } from '../bridge/context';
import { useSessionMetaCache } from './session-meta';

const SAVE_DELAY_MS = 200;

export interface TabState {
  ids: string[];
  active: string | null;
}

export function useTabs(initial: Settings, onClosed: (id: string) => void) {
  const bridge = useBridge();
  const sessions = useSessionMetaCache();
  const [state, setState] = useState<TabState>(() => ({
    ids: initial.openTabs,
    active: initial.activeTab && initial.openTabs.includes(initial.activeTab) ? initial.activeTab : (initial.openTabs[0] ?? null),
  }));
  const first = useRef(true);

  // Tabs saved for sessions deleted since (from the terminal, another window) are dropped; so
  // are new sessions nothing was said in before the reload: they are not kept (isUnstarted).
  useEffect(() => {
    for (const id of initial.openTabs) {
      sessions.info(id).then(
        async (meta) => {
          if (isUnstarted(meta) && (await discard(bridge, id))) setState((s) => dropTab(s, id));
        },
        (err: { code?: string }) => {
          if (err.code === 'unknown_session') setState((s) => dropTab(s, id));
        },
      );
    }
  }, [bridge, sessions, initial.openTabs]);

  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const timer = setTimeout(() => {
      bridge.invoke('settings.set', { openTabs: state.ids, activeTab: state.active }).catch(() => {
        // Not fatal: the tabs just will not come back after a restart.
      });
    }, SAVE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [bridge, state]);

  /** Focuses the session's tab, opening it first: right after `after`'s tab (a fork's parent) when that is open, else at the end. */
  const open = useCallback((id: string, after?: string) => {
    setState((s) => ({ ids: s.ids.includes(id) ? s.ids : insertAfter(s.ids, id, after), active: id }));
  }, []);

  /** A session just made (New session): its tab goes at the end, in front unless the user moved to another tab meanwhile. */
  const openMade = useCallback((id: string, activeWhenAsked: string | null) => setState((s) => withMadeTab(s, id, activeWhenAsked)), []);

  /** Closes the tab; a new session nothing was said in goes with it (the backend checks). */
  const close = useCallback(
    (id: string) => {
      setState((s) => dropTab(s, id));
      onClosed(id);
      void discard(bridge, id);
    },
    [bridge, onClosed],
  );

  const focus = useCallback((id: string) => setState((s) => ({ ...s, active: id })), []);

  /** Shows `id` in `current`'s tab, in place (a sibling branch); a tab `id` already had goes. */
  const replace = useCallback((current: string, id: string) => {
    setState((s) => {
      const ids = s.ids.filter((x) => x !== id).map((x) => (x === current ? id : x));
      return { ids: ids.includes(id) ? ids : [...ids, id], active: id };
    });
  }, []);

  const cycle = useCallback((step: number) => {
    setState((s) => {
      const at = s.active ? s.ids.indexOf(s.active) : 0;
      const active = s.ids[(at + step + s.ids.length) % s.ids.length];
      return active === undefined ? s : { ...s, active }; // undefined: no tabs open
    });
  }, []);

  return useMemo(
    () => ({ ids: state.ids, active: state.active, open, openMade, close, focus, cycle, replace }),
    [state, open, openMade, close, focus, cycle, replace],
  );
}

function insertAfter(ids: string[], id: string, after: string | undefined): string[] {
  const at = after === undefined ? -1 : ids.indexOf(after);
  return at < 0 ? [...ids, id] : [...ids.slice(0, at + 1), id, ...ids.slice(at + 1)];
}

/**
 * The tabs with a session just made: it takes the front only while the tab in front is
 * still the one it was asked from; a user who clicked elsewhere meanwhile stays there.
 */
export function withMadeTab(state: TabState, id: string, activeWhenAsked: string | null): TabState {
  const ids = state.ids.includes(id) ? state.ids : [...state.ids, id];
  return { ids, active: state.active === activeWhenAsked ? id : state.active };
}

/** The tab list without `id`; its right-hand neighbour (else the left) becomes active. */
function dropTab(state: TabState, id: string): TabState {
  const at = state.ids.indexOf(id);
  if (at < 0) return state;
  const ids = state.ids.filter((x) => x !== id);
  const active = state.active === id ? (ids[Math.min(at, ids.length - 1)] ?? null) : state.active;
  return { ids, active };
}

/** Where a tab lies along the strip (its left and right edge, in the same frame as the strip's). */
export interface TabSpan {
  id: string;
  left: number;
  right: number;
}

/** How much of a tab may be cut at the strip's edge before it counts as out of view: its border, a scroll rounded to whole pixels. */
const CUT_SLACK_PX = 4;

/**
 * The tabs not inside the strip's visible span (scrolled out, or cut at an edge): their
 * marker may not be seen there, so the overflow control shows it.
 */
export function tabsOutOfView(strip: { left: number; right: number }, tabs: readonly TabSpan[]): string[] {
  return tabs.filter((tab) => tab.left < strip.left - CUT_SLACK_PX || tab.right > strip.right + CUT_SLACK_PX).map((tab) => tab.id);
}

/** Deletes session `id` if nothing was said in it yet; false when it was kept (or is gone, or in use elsewhere). */
function discard(bridge: LoomBridge, id: string): Promise<boolean> {
  return bridge.invoke('sessions.discard', { id }).then(
    ({ discarded }) => discarded,
    () => false,
  );
}
