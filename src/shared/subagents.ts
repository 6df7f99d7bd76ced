/**
 * How a sub-agent is named to the user (docs/DESIGN.md#sub-agents): its approvals' labels
 * (agent/subagent.ts childHost), its session's title and its card in the parent's tab,
 * how its card words a call that started none, and what an import says of children it
 * could not link.
 */
import { toolText } from './fences';

/** The tool that starts a sub-agent (core/tools/subagent-tool.ts); the transcript shows its calls as sub-agent cards. */
export const RUN_SUBAGENT = 'run_subagent';

/** A task as approvals and progress lines name it: its start, on one line. */
export function taskLabel(task: string): string {
  const line = task.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

/** A child as its approvals and questions name it: `build sub-agent, "write the notes"`. */
export function subagentName(agent: string, task: string): string {
  return `${agent} sub-agent, "${taskLabel(task)}"`;
}

/** What a sub-agent card says of a run_subagent call that started no child, read from its result. */
export interface UnstartedRun {
  state: 'refused' | 'failed';
  /** The result's first line, as the model was told it. */
  reason: string;
}

/**
 * How a run_subagent call that started no child ended, from its tool result (fence and all):
 * `refused` when it was never tried — the permission gate's "Denied …"
 * (core/agent/permission-gate.ts), a cap's or a stop's "Not run: …" (tool-runner.ts
 * notRunResult) — and `failed` for every other answer (no such agent, a depth or read-only
 * refusal of the tool, arguments it could not take).
 */
export function unstartedRun(result: string): UnstartedRun {
  const reason = toolText(result).trim().split('\n', 1)[0] ?? '';
  return { state: /^(Denied\b|Not run:)/.test(reason) ? 'refused' : 'failed', reason };
}

/**
 * What an import says of the sub-agent sessions `unlinked` of session `sessionId` whose
 * run_subagent call its transcript does not have (`loom --import`, the window's import).
 */
export function unlinkedNote(sessionId: string, unlinked: readonly string[]): string {
  const sessions = unlinked.length === 1 ? '1 sub-agent session' : `${unlinked.length} sub-agent sessions`;
  return `Imported session ${sessionId}: ${sessions} named no run_subagent call of its transcript; imported unlinked (${unlinked.join(', ')}).`;
}
