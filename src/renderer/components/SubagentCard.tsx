/**
 * A run_subagent call in the parent's transcript (docs/DESIGN.md#sub-agents): the agent,
 * the task, where its run stands (live from the engine's events, from the store after a
 * reload; waiting on the user; refused or failed before it started, and why), the tools it
 * used, its tokens, cost and time, and Open, which shows the child's session in a tab
 * beside its parent.
 */
import { useEffect, useMemo, useState } from 'react';
import { taskLabel } from '../../shared/subagents';
import type { SubagentRun, ToolCall } from '../../shared/types';
import { formatCost, formatCount } from '../lib/format';
import { cardStatus, useSubagents } from '../state/subagents';

export function SubagentCard({ call }: { call: ToolCall }) {
  const view = useSubagents();
  const { agent, task } = useMemo(() => requestOf(call.function.arguments), [call.function.arguments]);
  const run = view.runs.find((r) => r.child.call_id === call.id);
  const { status, waiting, reason } = cardStatus(call.id, run, view);
  const { open } = view;
  return (
    <div className="card subagent" role="group" aria-label={`Sub-agent ${agent}: ${taskLabel(task)}`}>
      <div className="subagent-head">
        <span className="card-kind">Sub-agent</span> <code>{agent}</code>{' '}
        <span className={`subagent-state${waiting ? ' waiting' : ''}`} role="status" aria-label={`Status: ${status}`}>
          {status}
        </span>
      </div>
      <p className="subagent-task">{task}</p>
      {reason && <p className="subagent-reason">{reason}</p>}
      {run && <RunFacts run={run} />}
      {run && (
        <div className="card-actions">
          <button type="button" onClick={() => open(run.id)} aria-label={`Open the ${agent} sub-agent's session`}>
            Open
          </button>
        </div>
      )}
    </div>
  );
}

function RunFacts({ run }: { run: SubagentRun }) {
  const now = useNow(run.child.state === 'running');
  const ended = run.child.state === 'running' ? now : Date.parse(run.updated_at);
  const tokens = run.usage.prompt_tokens + run.usage.completion_tokens;
  return (
    <dl className="subagent-facts">
      <div>
        <dt>Tools</dt>
        <dd>{run.tools.length ? run.tools.join(', ') : 'none'}</dd>
      </div>
      <div>
        <dt>Tokens</dt>
        <dd>{formatCount(tokens)}</dd>
      </div>
      <div>
        <dt>Cost</dt>
        <dd>{formatCost(run.usage.cost_usd)}</dd>
      </div>
      <div>
        <dt>Time</dt>
        <dd>{elapsed(ended - Date.parse(run.created_at))}</dd>
      </div>
    </dl>
  );
}

/** The time now, once a second while `ticking`. */
function useNow(ticking: boolean): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}

function elapsed(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** The call's agent and task as the model wrote them; untrusted, shown as text. */
function requestOf(raw: string): { agent: string; task: string } {
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // Shown as an unknown agent with no task: the tool refused the call the same way.
  }
  const fields = parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  return { agent: typeof fields.agent === 'string' && fields.agent ? fields.agent : 'unknown', task: typeof fields.task === 'string' ? fields.task : '' };
}
