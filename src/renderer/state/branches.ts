/**
 * The branch points of one open session (docs/DESIGN.md#branches-in-the-ui): where its transcript
 * has sibling branches, by message index, kept current as sessions change. The engine
 * computes them; this only mirrors its answer.
 */
import { useEffect, useState } from 'react';
import type { BranchPoint } from '../../shared/contract';
import { useBridge } from '../bridge/context';

const REFRESH_DELAY_MS = 200;

export function useBranchPoints(id: string): Map<number, BranchPoint> {
  const bridge = useBridge();
  const [points, setPoints] = useState<Map<number, BranchPoint>>(() => new Map());
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    let live = true;
    const fetchPoints = () =>
      bridge.invoke('sessions.branches', { id }).then(
        (list) => live && setPoints(new Map(list.map((point) => [point.at, point]))),
        () => {}, // a deleted session shows no switchers; its tab reports the rest
      );
    void fetchPoints();
    const off = bridge.onEvent((event) => {
      // Any session's change may add or remove a sibling of this one (a fork, an edit, a deletion).
      const sessionEvent = event.type === 'session_changed' || event.type === 'session_deleted';
      if (!sessionEvent || timer) return;
      timer = setTimeout(() => {
        timer = null;
        void fetchPoints();
      }, REFRESH_DELAY_MS);
    });
    return () => {
      live = false;
      off();
      if (timer) clearTimeout(timer);
    };
  }, [bridge, id]);
  return points;
}
