/**
 * The interactive side of `loom`: reading lines (from a terminal or a pipe), showing the
 * engine's events as a conversation (`You: ` / `Assistant: `), answering its approval
 * prompts and questions from the next input line, and the REPL with its backslash
 * commands. End of input ends the session cleanly and counts as "no" to any question.
 */
import readline from 'node:readline';
import type { LoomEngine } from '../core/engine';
import { DEFAULT_AGENT } from '../core/agents/built-in';
import { errorMessage, isLoomError } from '../core/errors';
import { describeGrant } from '../shared/approvals';
import type { EngineEvent } from '../shared/engine-events';
import type { Pin } from '../shared/types';
import { answerOf, approvalText, askPrompt, grantsText } from './approval-prompt';
import { sessionInfo } from './lifecycle';
import { writeError, writeOut } from './output';
import { terminalSafe } from './terminal-safe';

/** Input lines one at a time, for whoever asks next (the prompt, an approval, a question). */
export class LineInput {
  readonly tty: boolean;
  private readonly rl: readline.Interface;
  private readonly queued: string[] = [];
  private waiter: ((line: string | null) => void) | null = null;
  private closed = false;

  constructor(
    input: NodeJS.ReadStream = process.stdin,
    private readonly output: NodeJS.WriteStream = process.stdout,
  ) {
    this.tty = Boolean(input.isTTY);
    this.rl = readline.createInterface({ input, output: this.tty ? output : undefined, terminal: this.tty });
    this.rl.on('line', (line) => (this.waiter ? this.settle(line) : this.queued.push(line)));
    this.rl.on('close', () => {
      this.closed = true;
      this.settle(null);
    });
  }

  /** Shows `prompt` and resolves to the next line, or null at end of input. */
  read(prompt: string): Promise<string | null> {
    this.showPrompt(prompt);
    const line = this.queued.shift();
    if (line !== undefined || this.closed) {
      this.echo(line ?? null);
      return Promise.resolve(line ?? null);
    }
    return new Promise((resolve) => {
      this.waiter = (value) => {
        this.echo(value);
        resolve(value);
      };
    });
  }

  /** True once the input has ended (EOF, or closed by a second Ctrl-C). */
  get ended(): boolean {
    return this.closed && this.queued.length === 0;
  }

  /** Ctrl-C: from the terminal (readline catches it) or as a signal when input is piped. */
  onInterrupt(handler: () => void): () => void {
    if (!this.tty) return onSigint(handler);
    this.rl.on('SIGINT', handler);
    return () => this.rl.off('SIGINT', handler);
  }

  /** Gives up waiting: the pending read resolves to null (a stopped turn's prompt). */
  cancel(): void {
    this.settle(null);
  }

  close(): void {
    this.rl.close();
  }

  private settle(line: string | null): void {
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.(line);
  }

  private showPrompt(prompt: string): void {
    if (!this.tty) return void this.output.write(prompt);
    this.rl.setPrompt(prompt);
    this.rl.prompt();
  }

  /**
   * Piped input is not echoed by anyone: write it after its prompt so the output reads
   * well (made terminalSafe: piped input may come from an untrusted file). A read that ends
   * without a line (EOF, Ctrl-C) still finishes the prompt's line.
   */
  private echo(line: string | null): void {
    if (!this.tty) this.output.write(`${terminalSafe(line ?? '')}\n`);
    else if (line === null) this.output.write('\n');
  }
}

type Write = (text: string) => void;

/**
 * Renders engine events as a conversation. `say` gets the reply text, `status` the lines
 * around it (tools, notices): both stdout in the REPL, stderr for status with -p so that
 * stdout holds only the answer. Both see only terminalSafe text: model replies, tool
 * output, titles and paths cannot send the terminal a control sequence.
 */
export class TerminalView {
  private replyOpen = false;
  private turnRunning = false;
  /** Sub-agents' sessions started from this chat (docs/DESIGN.md#sub-agents). */
  private readonly children = new Set<string>();
  private readonly say: Write;
  private readonly status: Write;

  constructor(
    say: Write,
    status: Write,
    private readonly replyPrefix: string,
  ) {
    this.say = (text) => say(terminalSafe(text));
    this.status = (text) => status(terminalSafe(text));
  }

  readonly handle = (event: EngineEvent): void => {
    // A sub-agent's own stream stays in its session: the chat shows one line as it starts and one as it ends.
    if ('sessionId' in event && this.children.has(event.sessionId)) return;
    switch (event.type) {
      case 'text':
        if (!this.replyOpen) this.say(this.replyPrefix);
        this.replyOpen = true;
        this.say(event.delta);
        break;
      case 'message':
        if (event.message.role === 'assistant') this.endReply();
        break;
      case 'tool_start':
        this.line(`[${toolLabel(event.name)}] ${clip(event.args, 200)}`);
        break;
      case 'tool_end':
        this.line(`[${toolLabel(event.name)}] -> ${resultPreview(event.result)}`);
        break;
      case 'notice':
        this.line(event.text);
        break;
      case 'compaction':
        // \compact reports its own outcome; only automatic compactions are shown here.
        if (this.turnRunning) this.line(compactionLine(event));
        break;
      case 'turn':
        this.turnRunning = event.phase === 'start';
        this.endReply();
        if (event.error) writeError(event.error);
        break;
      case 'approval':
      case 'question':
        // Asked and answered by answerFromInput.
        break;
      case 'grants':
        // Granted at this prompt or revoked by \revoke, which say so themselves.
        break;
      case 'subagent':
        if (event.state === 'running') this.children.add(event.childId);
        this.line(`[sub-agent ${event.agent}] ${event.state === 'running' ? 'started' : event.state}: ${clip(event.task, 120)}`);
        break;
      case 'usage':
      case 'session_changed':
      case 'session_deleted':
      case 'import_progress':
        break;
    }
  };

  line(text: string): void {
    this.endReply();
    this.status(`${text}\n`);
  }

  private endReply(): void {
    if (!this.replyOpen) return;
    this.say('\n');
    this.replyOpen = false;
  }
}

/**
 * Answers the engine's approval requests and questions from the next input line. Without
 * input (-p with no terminal) every approval is denied and every question unanswered.
 */
export function answerFromInput(engine: LoomEngine, view: TerminalView, input: LineInput | undefined) {
  return async (event: EngineEvent): Promise<void> => {
    if (event.type === 'approval') {
      view.line(approvalText(event));
      if (!input) {
        view.line('Denied: there is no terminal to ask (run `loom` interactively, or choose a --mode).');
        return engine.answerApproval(event.requestId, 'deny');
      }
      const answer = answerOf(await input.read(askPrompt(event.offer)), event.offer);
      engine.answerApproval(event.requestId, answer);
    } else if (event.type === 'question') {
      view.line(`Question: ${event.question}`);
      engine.answerQuestion(event.requestId, input ? await input.read('Answer: ') : null);
    }
  };
}

/** Ctrl-C as the signal it arrives as when no terminal is reading input. */
export function onSigint(handler: () => void): () => void {
  process.on('SIGINT', handler);
  return () => process.off('SIGINT', handler);
}

const HELP_TEXT = [
  'Commands:',
  '  \\exit          end the session (it is saved; resume it with loom --resume ID)',
  '  \\title TEXT    set the session title',
  '  \\info          show the session: id, title, messages, compactions, usage',
  '  \\compact [F]   summarise older turns now to shrink the working context (F: what to keep above all)',
  '  \\uncompact     undo the last compaction: the context before it comes back',
  '  \\pin [TEXT]    pin the last message, or a note: kept in front of the model through every compaction',
  '  \\pins          list the pins; \\unpin N removes pin N',
  "  \\fork [N]      a new session sharing this one's history (up to message N; you stay in this one)",
  "  \\agent [NAME]  list the agents, or make NAME the session's agent from the next message on",
  '  \\grants        what is allowed for this session (answer "a" at an approval to add to it)',
  '  \\revoke N      take back grant N of \\grants',
  '  \\help          this list',
  'Ctrl-C stops the reply in progress; at the prompt, press it twice to quit.',
].join('\n');

export interface ReplContext {
  engine: LoomEngine;
  sessionId: string;
  input: LineInput;
  view: TerminalView;
}

/** The REPL: returns the exit code (1 when the last message failed, e.g. the server is down). */
export async function runRepl(ctx: ReplContext): Promise<number> {
  const { engine, sessionId, input, view } = ctx;
  let busy = false;
  let exitArmed = false;
  const removeInterrupt = input.onInterrupt(() => {
    // Cancel the pending read first: it finishes the prompt's line before anything is said.
    if (busy) {
      input.cancel();
      engine.stop(sessionId);
      view.line('(stopping…)');
    } else if (exitArmed) {
      input.close();
    } else {
      exitArmed = true;
      input.cancel();
      view.line('(Press Ctrl-C again or type \\exit to quit.)');
    }
  });
  let failed = false;
  try {
    for (;;) {
      const line = await input.read('You: ');
      if (line === null) {
        if (exitArmed && !input.ended) continue;
        break;
      }
      exitArmed = false;
      const text = line.trim();
      if (!text) continue;
      if (text.startsWith('\\')) {
        if ((await runCommand(ctx, text)) === 'exit') break;
        continue;
      }
      busy = true;
      try {
        failed = (await engine.send(sessionId, line)).error !== null;
        // The next line is read once the label is written: with piped or typed-ahead input
        // it is there at once and would cancel every label (the windows never wait).
        await engine.afterTurnSettled(sessionId);
      } finally {
        busy = false;
      }
    }
  } finally {
    removeInterrupt();
  }
  return failed ? 1 : 0;
}

async function runCommand(ctx: ReplContext, text: string): Promise<'exit' | void> {
  const [name = ''] = text.split(/\s+/); // split gives at least one word
  const arg = text.slice(name.length).trim();
  try {
    switch (name) {
      case '\\exit':
      case '\\quit':
        return 'exit';
      case '\\help':
        return ctx.view.line(HELP_TEXT);
      case '\\title':
        return setTitle(ctx, arg);
      case '\\info':
        // The same report as `loom --info ID`.
        return await writeOut(`${sessionInfo(ctx.engine.store, ctx.sessionId, false)}\n`);
      case '\\compact':
        return await compact(ctx, arg);
      case '\\uncompact':
        return await uncompact(ctx);
      case '\\pin':
        return await pin(ctx, arg);
      case '\\pins':
        return ctx.view.line(pinsText(ctx.engine.pins(ctx.sessionId)));
      case '\\unpin':
        return await unpin(ctx, arg);
      case '\\fork':
        return fork(ctx, arg);
      case '\\agent':
        return await agent(ctx, arg);
      case '\\grants':
        return ctx.view.line(grantsText(ctx.engine.grants(ctx.sessionId)));
      case '\\revoke':
        return revoke(ctx, arg);
      default:
        return ctx.view.line(`Unknown command ${name}; type \\help for the commands.`);
    }
  } catch (err) {
    if (!isLoomError(err)) throw err;
    writeError(errorMessage(err));
  }
}

function setTitle(ctx: ReplContext, title: string): void {
  if (!title) return ctx.view.line('Usage: \\title TEXT');
  ctx.engine.rename(ctx.sessionId, title);
  ctx.view.line(`Title set: ${title}`);
}

async function uncompact(ctx: ReplContext): Promise<void> {
  const { contextTokens } = await ctx.engine.uncompact(ctx.sessionId);
  ctx.view.line(`Compaction undone: the context before it is back (${contextTokens} tokens).`);
}

async function pin(ctx: ReplContext, note: string): Promise<void> {
  const pinned = await ctx.engine.pin(ctx.sessionId, note ? { note } : 'last');
  ctx.view.line(`Pinned (${pinned.id}): ${preview(pinned.text)}`);
}

async function unpin(ctx: ReplContext, arg: string): Promise<void> {
  if (!/^\d+$/.test(arg)) return ctx.view.line('Usage: \\unpin N (the number \\pins shows)');
  await ctx.engine.unpin(ctx.sessionId, Number(arg));
  ctx.view.line(`Unpinned ${arg}.`);
}

function pinsText(pins: readonly Pin[]): string {
  if (!pins.length) return 'Nothing is pinned. \\pin pins the last message, \\pin TEXT a note.';
  return pins.map((p) => `  ${p.id}. ${p.seq === null ? 'note' : `message ${p.seq + 1} (${p.role ?? '?'})`}: ${preview(p.text)}`).join('\n');
}

function preview(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

async function compact(ctx: ReplContext, focus: string): Promise<void> {
  try {
    const { before_tokens, after_tokens } = await ctx.engine.compact(ctx.sessionId, { focus: focus || undefined });
    ctx.view.line(compactedLine(before_tokens, after_tokens));
  } catch (err) {
    // Nothing old enough to compact is an answer, not a failure.
    if (isLoomError(err) && err.code === 'nothing_to_compact') return ctx.view.line(err.message);
    throw err;
  }
}

/** `\fork N` counts messages as `loom --export` lists the transcript (1 = the system message). */
function fork(ctx: ReplContext, arg: string): void {
  if (arg && !/^\d+$/.test(arg)) return ctx.view.line('Usage: \\fork [N], N the message to fork after (1 = the system message)');
  const forked = ctx.engine.fork(ctx.sessionId, arg ? Number(arg) : undefined);
  ctx.view.line(`Forked as ${forked.id}. You are still in session ${ctx.sessionId}; open the fork with: loom --resume ${forked.id}`);
}

/** `\\agent` lists the agents of the session's folder (the current one marked); `\\agent NAME` switches. */
async function agent(ctx: ReplContext, name: string): Promise<void> {
  const meta = ctx.engine.store.getMeta(ctx.sessionId);
  if (name) {
    const changed = await ctx.engine.setSessionAgent(ctx.sessionId, name);
    return ctx.view.line(changed.agent === meta.agent ? `The agent is already ${name}.` : `Agent: ${changed.agent} from your next message on.`);
  }
  const current = meta.agent ?? DEFAULT_AGENT;
  const { agents } = await ctx.engine.sessionAgents(ctx.sessionId);
  const width = Math.max(...agents.map((a) => a.name.length));
  ctx.view.line(agents.map((a) => `${a.name === current ? '*' : ' '} ${a.name.padEnd(width)}  ${a.description}`).join('\n'));
}

function revoke(ctx: ReplContext, arg: string): void {
  const grants = ctx.engine.grants(ctx.sessionId);
  const grant = /^\d+$/.test(arg) ? grants[Number(arg) - 1] : undefined;
  if (!grant) return ctx.view.line(grants.length ? `Usage: \\revoke N, N from 1 to ${grants.length} (see \\grants)` : grantsText(grants));
  ctx.engine.revokeGrant(ctx.sessionId, grant.id);
  ctx.view.line(`Revoked: ${describeGrant(grant)} is asked about again.`);
}

/** A model may call a tool without naming it; the line still says which call it is. */
function toolLabel(name: string): string {
  return name.trim() ? name : '(no tool name)';
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The first line of a tool result and how long the rest is. */
function resultPreview(result: string): string {
  const lines = result.split('\n');
  const more = lines.length > 1 ? ` (+${lines.length - 1} more line${lines.length > 2 ? 's' : ''})` : '';
  const [first = ''] = lines; // split gives at least one line
  return `${clip(first, 160)}${more}`;
}

function compactionLine(event: Extract<EngineEvent, { type: 'compaction' }>): string {
  if (event.phase === 'start') return 'Compacting older turns to fit the context budget…';
  if (event.phase === 'done') return compactedLine(event.before_tokens, event.after_tokens);
  return `Compaction failed: ${event.error}`;
}

/** The same line after an automatic compaction and after \compact. */
function compactedLine(before: number | undefined, after: number | undefined): string {
  return `Context compacted. (${before} -> ${after} tokens)`;
}
