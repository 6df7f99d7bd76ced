/**
 * A session's sub-agents as its tab shows them (docs/DESIGN.md#sub-agents): read from the
 * store (sessions.children), so a reload shows what a child did, and again each time the
 * engine says a child started or ended (`subagent`) or a child's session changed (its
 * tools and tokens as they come). The engine decides; this only mirrors it.
 */
import { createContext, useContext, useEffect, useRef, useState } from 'react';
import type { ChildState, SubagentRun } from '../../shared/types';
import { useBridge } from '../bridge/context';
import type { Approval } from './chat-reducer';

export function useSubagentRuns(parentId: string): SubagentRun[] {
  const bridge = useBridge();
  const [runs, setRuns] = useState<SubagentRun[]>([]);
  const [reads, setReads] = useState(0);
  const childIds = useRef(new Set<string>());
  useEffect(
    () =>
      bridge.onEvent((event) => {
        const ours = (event.type === 'subagent' && event.sessionId === parentId) || (event.type === 'session_changed' && childIds.current.has(event.sessionId));
        if (ours) setReads((n) => n + 1);
      }),
    [bridge, parentId],
  );
  useEffect(() => {
    let live = true;
    bridge.invoke('sessions.children', { id: parentId }).then(
      (value) => {
        if (!live) return;
        childIds.current = new Set(value.map((run) => run.id));
        setRuns(value);
      },
      () => {}, // the cards show the calls without their runs' facts
    );
    return () => {
      live = false;
    };
  }, [bridge, parentId, reads]);
  return runs;
}

/** Whether session `id` is a sub-agent still running: its tab is read-only until it ends. */
export function useRunningChild(id: string): boolean {
  const bridge = useBridge();
  const [state, setState] = useState<ChildState | null>(null);
  useEffect(() => {
    let live = true;
    const off = bridge.onEvent((event) => event.type === 'subagent' && event.childId === id && setState(event.state));
    bridge.invoke('sessions.info', { id }).then(
      (info) => live && setState((heard) => heard ?? info.child?.state ?? null),
      () => {}, // the tab says what is wrong with the session itself
    );
    return () => {
      live = false;
      off();
    };
  }, [bridge, id]);
  return state === 'running';
}

/** What a tab gives the sub-agent cards of its transcript. */
export interface SubagentsView {
  runs: SubagentRun[];
  /** The tab's pending approvals: a child's name the child (shared/subagents.ts). */
  approvals: Approval[];
  /** Opens the child's session in a tab beside this one. */
  open: (childId: string) => void;
}

export const SubagentsContext = createContext<SubagentsView>({ runs: [], approvals: [], open: () => {} });

export function useSubagents(): SubagentsView {
  return useContext(SubagentsContext);
}
