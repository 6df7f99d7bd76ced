/**
 * A sub-agent's run (docs/DESIGN.md#sub-agents): the child session a run_subagent call
 * starts, run to its final answer, whose answer, bounded, is the call's result. The engine
 * opens the child (its row, lease, prompt and tools: SubagentHost.open); this module runs it
 * under the parent's stop and turns how it ended into the result and the child's state.
 */
import { subagentName } from '../../shared/subagents';
import type { RequestOrigin } from '../../shared/engine-events';
import type { ChildState, ChatMessage } from '../../shared/types';
import type { AgentDefinition } from '../agents/definition';
import { LoomError } from '../errors';
import type { AgentHost } from './host';
import { runReplyTurn } from './loop';
import type { AgentSession } from './session';

/** The cap on a child's answer as the parent receives it: the child's whole work stays in its own session. */
const MAX_SUBAGENT_ANSWER_CHARS = 16_000;

/** An opened child: its agent, and the end of its run (state recorded, lease released, closed). */
export interface OpenChild {
  agent: AgentSession;
  finish(state: ChildState): void;
}

/** What the engine gives a parent session to run children with. */
export interface SubagentHost {
  /** The agent named `name` where `parent` works; a LoomError naming the agents there are, for another name. */
  agentNamed(parent: AgentSession, name: string): Promise<AgentDefinition>;
  /** At most this many children of one reply run at once (--max-parallel-subagents). */
  maxParallel(): number;
  /** The child's session, its task its first message. */
  open(parent: AgentSession, callId: string, definition: AgentDefinition, task: string): OpenChild;
}

/**
 * Runs the child for call `callId` of `parent` to its final answer and resolves to the
 * parent's tool result. The parent's stop stops the child; what it did stays in its session.
 */
export async function runSubagent(
  parent: AgentSession,
  host: SubagentHost,
  callId: string,
  request: { agent: string; task: string },
  signal: AbortSignal,
): Promise<string> {
  const definition = await host.agentNamed(parent, request.agent);
  // A read-only session's sub-agents are read-only too: a child never widens what its parent may do.
  if (parent.agent.access === 'readOnly' && definition.access !== 'readOnly') {
    throw new LoomError(`the ${parent.agent.name} agent is read-only, and so must its sub-agents be; ${definition.name} is not.`, 'agent_refused');
  }
  const child = host.open(parent, callId, definition, request.task);
  let state: ChildState = 'failed';
  const stopChild = () => child.agent.stop();
  try {
    // The task is the child's first message already (SubagentHost.open): the turn answers it.
    const running = runReplyTurn(child.agent);
    signal.addEventListener('abort', stopChild, { once: true });
    if (signal.aborted) stopChild();
    const outcome = await running;
    const answer = finalAnswer(child.agent.messages);
    state = signal.aborted ? 'stopped' : outcome.error ? 'failed' : answer === null ? 'stopped' : 'done';
    return resultFor(definition.name, child.agent.id, state, answer, outcome.error);
  } finally {
    signal.removeEventListener('abort', stopChild);
    child.finish(state);
  }
}

/** The child's last reply when it is a final one (no tool calls, not cut by a stop); null otherwise. */
function finalAnswer(messages: readonly ChatMessage[]): string | null {
  const last = messages.at(-1);
  if (last?.role !== 'assistant' || last.tool_calls?.length || last.stopped) return null;
  return typeof last.content === 'string' && last.content.trim() ? last.content : null;
}

function resultFor(agent: string, childId: string, state: ChildState, answer: string | null, error: string | undefined): string {
  if (state === 'done' && answer !== null) return bounded(answer);
  const why = state === 'failed' ? `it failed: ${error ?? 'unknown error'}` : 'it stopped before a final answer (a cap or a stop)';
  return `The ${agent} sub-agent gave no answer: ${why}. Its partial work is kept in session ${childId}.`;
}

function bounded(answer: string): string {
  if (answer.length <= MAX_SUBAGENT_ANSWER_CHARS) return answer;
  return `${answer.slice(0, MAX_SUBAGENT_ANSWER_CHARS)}\n[The sub-agent's answer was cut at ${MAX_SUBAGENT_ANSWER_CHARS} of ${answer.length} characters.]`;
}

/**
 * The child's face to the user is its parent's: `parent` (the parent's host, which names
 * `origin` in each request) takes its approvals and questions to the parent's tab, so a
 * stop there settles them; their words name the child's agent and task too, for the command
 * line. Its other events go out under its own session id, for a window that shows the child.
 */
export function childHost(parent: AgentHost, origin: RequestOrigin): AgentHost {
  const who = subagentName(origin.agent, origin.task);
  return {
    emit: (event) => parent.emit(event),
    approve: (request) => parent.approve({ ...request, label: `${who}: ${request.label}` }),
    ask: (question) => parent.ask(`(${who}) ${question}`),
  };
}
