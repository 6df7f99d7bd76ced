/**
 * The model server's models for a picker (docs/DESIGN.md#model-picker): asked with
 * `models.list` for a server (the one in use when none is given), answered as a list or
 * as the one sentence that says why there is none.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { MethodInput } from '../../shared/contract';
import { useBridge } from '../bridge/context';
import { errorMessage } from '../lib/errors';

export type ModelListState = { status: 'loading' } | { status: 'ready'; models: string[] } | { status: 'failed'; error: string };

export type ModelServerProbe = MethodInput<'models.list'>;

/**
 * The list, fetched at once and again when `refresh(probe)` names another server or key
 * (leaving a field unchanged asks nothing); a slower, older answer never wins.
 */
export function useModelList(initial: ModelServerProbe = {}): {
  list: ModelListState;
  refresh: (probe: ModelServerProbe) => void;
  show: (models: string[]) => void;
} {
  const bridge = useBridge();
  const [list, setList] = useState<ModelListState>({ status: 'loading' });
  const asked = useRef(0);
  const lastProbe = useRef<string | null>(null);
  const refresh = useCallback(
    (probe: ModelServerProbe) => {
      const key = JSON.stringify(probe);
      if (key === lastProbe.current) return;
      lastProbe.current = key;
      // What is shown stays until the answer replaces it: leaving a field must not move the
      // button the pointer is about to release on (the blur comes with the press).
      const request = ++asked.current;
      bridge.invoke('models.list', probe).then(
        ({ models }) => request === asked.current && setList({ status: 'ready', models }),
        (err: unknown) => request === asked.current && setList({ status: 'failed', error: errorMessage(err) }),
      );
    },
    [bridge],
  );
  // A connection test's answer carries the list too: shown without asking again.
  const show = useCallback((models: string[]) => {
    ++asked.current;
    setList({ status: 'ready', models });
  }, []);
  const [first] = useState(initial);
  useEffect(() => refresh(first), [refresh, first]);
  return { list, refresh, show };
}
