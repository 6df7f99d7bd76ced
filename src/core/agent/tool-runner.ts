/**
 * Runs one tool call the model asked for: parse and validate the arguments, check the
 * permission, snapshot files before a write, run with a time limit, cut long output and
 * wrap it as untrusted data. Never throws: whatever happens becomes the tool result, so
 * the model always gets an answer it can act on.
 */
import type { ToolCall } from '../../shared/types';
import { errorMessage, isLoomError } from '../errors';
import { resolveInsideProject } from '../security/policy';
import { wrapToolResult } from '../security/untrusted';
import { parseToolArguments, truncateToolResult } from '../tools/index';
import type { Tool, ToolContext } from '../tools/tool';
import { checkPermission } from './permission-gate';
import type { AgentSession } from './session';
import { runSubagent } from './subagent';

export interface ToolOutcome {
  /** What the model receives as the tool message content. */
  content: string;
  /** What the user is shown (unwrapped). */
  display: string;
}

/**
 * Grace on top of --tool-timeout so that a tool enforcing the limit itself (run_bash kills
 * its process and reports the output so far) answers before this outer guard fires.
 */
const OUTER_TIMEOUT_GRACE_MS = 5_000;

export async function runToolCall(session: AgentSession, call: ToolCall, signal: AbortSignal, opts: { preApproved?: boolean } = {}): Promise<ToolOutcome> {
  try {
    return await checkAndRun(session, call, signal, opts);
  } catch (err) {
    // Whatever failed around the tool (a front end that could not ask, a file that could
    // not be checked), the call still gets its one result: without it the next request
    // would be invalid.
    const error = `Error: the tool call could not be run: ${errorMessage(err)}`;
    session.audit.write('tool_result', { tool: call.function.name, call_id: call.id, result: error });
    return plainOutcome(error);
  }
}

async function checkAndRun(session: AgentSession, call: ToolCall, signal: AbortSignal, opts: { preApproved?: boolean }): Promise<ToolOutcome> {
  const name = call.function.name;
  const tool = session.tools.find((t) => t.name === name);
  if (!tool) {
    const available = `Available tools: ${session.tools.map((t) => t.name).join(', ')}.`;
    const error = name.trim()
      ? `Error: there is no tool named "${name}". ${available}`
      : `Error: this tool call has no tool name; call one of the tools by its name. ${available}`;
    session.audit.write('validation_error', { tool: name, call_id: call.id, arguments: call.function.arguments, error });
    return plainOutcome(error);
  }
  const parsed = parseToolArguments(tool, call.function.arguments);
  if (!parsed.ok) {
    session.audit.write('validation_error', { tool: name, call_id: call.id, arguments: call.function.arguments, error: parsed.error });
    return wrapped(name, parsed.error);
  }
  const permission = await checkPermission(session, tool, parsed.args, { ...opts, callId: call.id });
  // A stop while the user was being asked: the answer (a denial) is not the user's choice.
  if (signal.aborted) return plainOutcome(notRunResult(STOPPED_REASON));
  if (!permission.allowed) return plainOutcome(permission.result);

  await snapshotBeforeWrite(session, tool, parsed.args);
  const text = truncateToolResult(await execute(session, tool, parsed.args, call.id, signal));
  session.audit.write('tool_result', { tool: name, call_id: call.id, result: text });
  return wrapped(name, text);
}

export const STOPPED_REASON = 'the turn was stopped by the user';

/**
 * Announces the call, gets its outcome (run or not) and commits the result: this is how
 * every tool call, in a turn or recovered after a crash, gets its one result message.
 */
export async function answerToolCall(session: AgentSession, call: ToolCall, outcomeOf: () => ToolOutcome | Promise<ToolOutcome>): Promise<void> {
  // Calls run one at a time and nothing else is appended meanwhile: the result takes the next position.
  announce(session, call, session.nextSeq());
  commitResult(session, call, await outcomeOf());
}

/** The tool_start event of a call whose result will take transcript position `seq`. */
function announce(session: AgentSession, call: ToolCall, seq: number): void {
  const { name, arguments: args } = call.function;
  session.host.emit({ type: 'tool_start', sessionId: session.id, seq, callId: call.id, name, effect: session.effectOf(name), args });
}

/** Appends the call's one result message and says so (tool_end). */
function commitResult(session: AgentSession, call: ToolCall, outcome: ToolOutcome): void {
  const { name } = call.function;
  const seq = session.append({ role: 'tool', tool_call_id: call.id, content: outcome.content });
  session.host.emit({ type: 'tool_end', sessionId: session.id, seq, callId: call.id, name, effect: session.effectOf(name), result: outcome.display });
}

/**
 * answerToolCall for calls that run at the same time (run_subagent's, docs/DESIGN.md#sub-agents),
 * at most `limit` at once: each is announced at the position its result will take, and the
 * results are committed in call order, each as soon as it and those before it are in.
 */
export async function answerToolCallsTogether(
  session: AgentSession,
  calls: readonly ToolCall[],
  limit: number,
  outcomeOf: (call: ToolCall) => Promise<ToolOutcome>,
): Promise<void> {
  const first = session.nextSeq();
  for (const [i, call] of calls.entries()) announce(session, call, first + i);
  const outcomes = startLimited(
    calls.map((call) => () => outcomeOf(call)),
    limit,
  );
  for (const [i, call] of calls.entries()) commitResult(session, call, await outcomes[i]!);
}

/** Starts the tasks in order, at most `limit` running at a time; each promise settles with its task. */
function startLimited<T>(tasks: readonly (() => Promise<T>)[], limit: number): Promise<T>[] {
  let active = 0;
  const waiting: (() => void)[] = [];
  const acquire = (): Promise<void> => {
    if (active < limit) {
      active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  // A freed slot passes straight to the next waiting task, so `active` counts it still.
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };
  return tasks.map(async (task) => {
    await acquire();
    try {
      return await task();
    } finally {
      release();
    }
  });
}

/** The result of a call that a cap or a stop cut from its batch. */
export function notRunResult(reason: string): string {
  return `Not run: ${reason}.`;
}

async function execute(session: AgentSession, tool: Tool, args: unknown, callId: string, signal: AbortSignal): Promise<string> {
  const timeoutMs = session.config.toolTimeoutSec * 1000;
  const controller = new AbortController();
  const cancel = () => controller.abort();
  signal.addEventListener('abort', cancel, { once: true });
  const guard = timeLimit(tool, timeoutMs + OUTER_TIMEOUT_GRACE_MS);
  const started = Date.now();
  // A tool that enforces the limit itself (run_bash) returns after it: audit that too.
  const auditIfTimedOut = () => {
    if (tool.effects.kind === 'interact' || Date.now() - started < timeoutMs) return;
    session.audit.write('tool_timeout', { tool: tool.name, call_id: callId, timeout_sec: session.config.toolTimeoutSec });
  };
  try {
    const outcome = await Promise.race([tool.run(args, toolContext(session, callId, controller.signal, timeoutMs)), guard.expired]);
    auditIfTimedOut();
    if (outcome !== TIMED_OUT) return outcome;
    controller.abort();
    return `Error: ${tool.name} did not finish within ${session.config.toolTimeoutSec} s and was stopped.`;
  } catch (err) {
    auditIfTimedOut();
    if (signal.aborted) return 'Error: stopped by the user before it finished.';
    return `Error: ${isLoomError(err) ? err.message : `the tool failed unexpectedly: ${errorMessage(err)}`}`;
  } finally {
    guard.clear();
    signal.removeEventListener('abort', cancel);
  }
}

const TIMED_OUT = Symbol('timed out');

/** The outer guard; a question to the user (interact) waits for the person, however long. */
function timeLimit(tool: Tool, ms: number): { expired: Promise<typeof TIMED_OUT>; clear(): void } {
  if (tool.effects.kind === 'interact') return { expired: new Promise(() => {}), clear: () => {} };
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  return { expired, clear: () => clearTimeout(timer) };
}

function toolContext(session: AgentSession, callId: string, signal: AbortSignal, toolTimeoutMs: number): ToolContext {
  const host = session.subagents;
  return {
    ...(host && { runSubagent: (request) => runSubagent(session, host, callId, request, signal) }),
    projectDir: session.projectDir,
    sessionId: session.id,
    signal,
    toolTimeoutMs,
    plan: { get: () => session.plan, set: (plan) => session.savePlan(plan) },
    askUser: (question) => session.host.ask(question),
    memory: session.memory,
    sessions: session.store,
    passEnv: session.config.passEnv,
  };
}

/** Keeps the file's current content so that the user can revert at the end of the session. */
async function snapshotBeforeWrite(session: AgentSession, tool: Tool, args: unknown): Promise<void> {
  if (tool.effects.kind !== 'write-files') return;
  try {
    await session.snapshots.snapshot(session.projectDir, await resolveInsideProject(session.projectDir, tool.effects.change(args).path));
  } catch {
    // Outside the project: the tool itself refuses, so there is nothing to snapshot.
  }
}

/** An outcome that is not tool output (a refusal, "Not run"): shown and sent as it is. */
export function plainOutcome(text: string): ToolOutcome {
  return { content: text, display: text };
}

function wrapped(name: string, text: string): ToolOutcome {
  return { content: wrapToolResult(name, text), display: text };
}
