/**
 * How a sub-agent is named to the user (docs/DESIGN.md#sub-agents): its approvals' labels
 * (agent/subagent.ts childHost), its session's title and its card in the parent's tab,
 * which finds the child's pending approvals by this same name.
 */

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
