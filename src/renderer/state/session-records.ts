/**
 * What a session keeps beside its transcript, for the message actions and the info
 * dialog: its pins and its compaction records. Fetched once, then again after each change
 * to the session (a pin, an unpin, an undo, from this window or another): the engine
 * announces every one as `session_changed`. The engine decides; this only mirrors it.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { LoomBridge } from '../../shared/contract';
import type { CompactionDetail, Pin } from '../../shared/types';
import { useBridge } from '../bridge/context';
import { errorMessage } from '../lib/errors';

interface Records<T> {
  value: T | null;
  error: string | null;
  /** Reads them again now (after an action of this window's, without waiting for its event). */
  refresh: () => void;
}

function useSessionRecords<T>(id: string, read: (bridge: LoomBridge, id: string) => Promise<T>): Records<T> {
  const bridge = useBridge();
  const [state, setState] = useState<{ value: T | null; error: string | null }>({ value: null, error: null });
  const [reads, setReads] = useState(0);
  const refresh = useCallback(() => setReads((n) => n + 1), []);
  useEffect(() => bridge.onEvent((event) => event.type === 'session_changed' && event.sessionId === id && refresh()), [bridge, id, refresh]);
  useEffect(() => {
    let live = true;
    read(bridge, id).then(
      (value) => live && setState({ value, error: null }),
      (err: unknown) => live && setState((old) => ({ ...old, error: errorMessage(err) })),
    );
    return () => {
      live = false;
    };
  }, [bridge, id, read, reads]);
  return { ...state, refresh };
}

const readPins = (bridge: LoomBridge, id: string) => bridge.invoke('sessions.pins', { id });
const readCompactions = (bridge: LoomBridge, id: string) => bridge.invoke('sessions.compactions', { id });

export interface SessionPins {
  pins: Pin[] | null;
  /** The pin of each pinned transcript message, by its index. */
  byMessage: Map<number, Pin>;
  error: string | null;
  pinMessage: (index: number) => Promise<void>;
  pinNote: (note: string) => Promise<void>;
  unpin: (pinId: number) => Promise<void>;
}

/** The session's pins and the actions on them; an action's refusal rejects with the engine's one line. */
export function usePins(id: string): SessionPins {
  const bridge = useBridge();
  const { value: pins, error, refresh } = useSessionRecords(id, readPins);
  const byMessage = useMemo(() => new Map((pins ?? []).flatMap((pin) => (pin.seq === null ? [] : [[pin.seq, pin]]))), [pins]);
  const after = useCallback(
    async (action: Promise<unknown>) => {
      try {
        await action;
      } finally {
        refresh();
      }
    },
    [refresh],
  );
  return useMemo(
    () => ({
      pins,
      byMessage,
      error,
      pinMessage: (index) => after(bridge.invoke('chat.pin', { sessionId: id, seq: index })),
      pinNote: (note) => after(bridge.invoke('chat.pin', { sessionId: id, note })),
      unpin: (pinId) => after(bridge.invoke('chat.unpin', { sessionId: id, pinId })),
    }),
    [pins, byMessage, error, after, bridge, id],
  );
}

export function useCompactionDetails(id: string): { compactions: CompactionDetail[] | null; error: string | null; refresh: () => void } {
  const { value: compactions, error, refresh } = useSessionRecords(id, readCompactions);
  return { compactions, error, refresh };
}
