/**
 * A session's sub-agents as its tab shows them (docs/DESIGN.md#sub-agents): read from the
 * store (sessions.children), so a reload shows what a child did, and again each time the
 * engine says a child started or ended (`subagent`) or a child's session changed (its
 * tools and tokens as they come). The engine decides; this only mirrors it.
 */
import { createContext, useContext, useEffect, useRef, useState } from 'react';
import type { RequestOrigin } from '../../shared/engine-events';
import { unstartedRun } from '../../shared/subagents';
import type { ChildState, SubagentRun } from '../../shared/types';
import { useBridge } from '../bridge/context';
import type { Approval, Question } from './chat-reducer';

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
  /** The tab's pending approvals and questions: each names the child it comes from, if one (`subagent`). */
  approvals: Approval[];
  questions: Question[];
  /** The result of a call of this transcript, once the view holds it. */
  resultOf: (callId: string) => string | undefined;
  /** The transcript view's version: a new one may hold more results, so the cards read them again. */
  version: number;
  /** Opens the child's session in a tab beside this one. */
  open: (childId: string) => void;
}

export const SubagentsContext = createContext<SubagentsView>({ runs: [], approvals: [], questions: [], resultOf: () => undefined, version: 0, open: () => {} });

export function useSubagents(): SubagentsView {
  return useContext(SubagentsContext);
}

/** What a sub-agent card says: where the call's run stands, and why, when it started none. */
export interface CardStatus {
  status: string;
  /** The child waits on the user (an approval or a question in this tab). */
  waiting: boolean;
  /** The one-line reason a call that started no child gave. */
  reason: string | null;
}

/**
 * The status of run_subagent call `callId`, whose child is `run` (none yet, or none ever):
 * a running child with a request pending in the tab waits for the user; a call answered
 * without a child was refused or failed, its result says why.
 */
export function cardStatus(callId: string, run: SubagentRun | undefined, view: Pick<SubagentsView, 'approvals' | 'questions' | 'resultOf'>): CardStatus {
  // The request's own ids name its child: before the runs are read, its call alone does.
  const fromThisChild = ({ subagent }: { subagent?: RequestOrigin }) => subagent?.callId === callId && (!run || subagent.childId === run.id);
  const live = !run || run.child.state === 'running';
  if (live && view.approvals.some(fromThisChild)) return { status: 'waiting for approval', waiting: true, reason: null };
  if (live && view.questions.some(fromThisChild)) return { status: 'waiting for your answer', waiting: true, reason: null };
  if (run) return { status: run.child.state, waiting: false, reason: null };
  const result = view.resultOf(callId);
  if (result === undefined) return { status: 'not started', waiting: false, reason: null };
  const { state, reason } = unstartedRun(result);
  return { status: state, waiting: false, reason };
}
