/**
 * `loom` as a chat (no lifecycle flag): a new session, `--resume ID`, `--continue`, either
 * as the REPL or as one turn with `-p PROMPT`. The engine does the work; this file picks
 * the session, wires the terminal to the engine's events, and says at start and end which
 * session it is so that the user can come back to it.
 */
import path from 'node:path';
import type { LoomConfig } from '../core/config';
import { DEFAULT_AGENT } from '../core/agents/built-in';
import { problemLine } from '../core/agents/definition';
import { LoomEngine } from '../core/engine';
import { isLoomError, LoomError } from '../core/errors';
import { SessionStore } from '../core/store/session-store';
import { BASE_TOOL_ENV } from '../shared/settings';
import { messageCountText } from '../shared/message-count';
import { isYes } from './approval-prompt';
import { LOOM_VERSION } from './options';
import { answerFromInput, LineInput, onSigint, runRepl, TerminalView } from './repl';
import { terminalSafe } from './terminal-safe';

export interface ChatOptions {
  prompt?: string;
  resume?: string;
  continueLast?: boolean;
  /** --model: a resumed session changes to it (a new one starts with it anyway). */
  model?: string;
  /** --project: a new session's folder, or another for a resumed one (engine.setProject says when that may be). */
  project?: string;
  /** --agent: a resumed session changes to it (a new one starts with it, from the config). */
  agent?: string;
}

/** Exit code when -p was stopped with Ctrl-C (the shell convention for SIGINT). */
const INTERRUPTED_EXIT = 130;

export async function runChat(config: LoomConfig, opts: ChatOptions): Promise<number> {
  const interactive = opts.prompt === undefined;
  const store = SessionStore.open(config.dataDir);
  let engine: LoomEngine | undefined;
  // -p reads no prompt, but a person at a terminal can still answer an approval.
  const input = interactive || process.stdin.isTTY ? new LineInput() : undefined;
  try {
    // A new session works in --project, else the folder loom runs in; a resumed one in its own (docs/DESIGN.md#the-project-folder).
    engine = new LoomEngine({ config, store, projectDir: opts.project ?? process.cwd() });
    const status = (text: string) => void (interactive ? process.stdout : process.stderr).write(text);
    const view = new TerminalView((text) => void process.stdout.write(text), status, interactive ? 'Assistant: ' : '');
    engine.on(view.handle);
    const answer = answerFromInput(engine, view, input);
    // An engine listener returns nothing: a failed read is said on the terminal, not left as an unhandled rejection.
    engine.on((event) => void answer(event).catch((err: unknown) => view.line(`Could not read an answer: ${String(err)}`)));
    warnAboutSecrets(engine);
    // Before the session opens, so that it is offered their tools.
    for (const line of await engine.startMcpServers(LOOM_VERSION)) process.stderr.write(terminalSafe(`${line}\n`));

    const sessionId = await openChatSession(engine, store, { ...opts, defaultModel: config.model }, view, interactive ? ' Type \\help for commands.' : '');
    await warnAboutAgents(engine, sessionId);
    const code = input && interactive ? await runRepl({ engine, sessionId, input, view }) : await runPrompt(engine, sessionId, opts.prompt ?? '', input);
    if (input && interactive) await offerRevert(engine, sessionId, input, view);
    // No next message will come: let the session's label be written before it is closed.
    await engine.afterTurnSettled(sessionId);
    engine.close(sessionId);
    view.line(`Session ${sessionId} saved. Resume it with: loom --resume ${sessionId}`);
    return code;
  } finally {
    engine?.close();
    input?.close();
    store.close();
    await engine?.mcpServersClosed();
  }
}

/** `hint` ends the opening line: the REPL mentions \help, -p has no commands. */
async function openChatSession(
  engine: LoomEngine,
  store: SessionStore,
  opts: ChatOptions & { defaultModel: string },
  view: TerminalView,
  hint: string,
): Promise<string> {
  if (opts.resume !== undefined || opts.continueLast) {
    const id = store.resolveId(opts.resume ?? mostRecentId(store));
    view.line(`Resuming session ${id}.`);
    const opened = await openInFolder(engine, id, opts.project).catch((err) => {
      throw withAdvice(err, id);
    });
    const unchosen = opts.model === undefined ? engine.unchosenModel(id) : null;
    if (unchosen) {
      throw new LoomError(
        `${unchosen.source} recorded session ${id} with the model ${unchosen.model}, which Loom does not send to your server without asking: resume it with --model NAME (your default is ${opts.defaultModel}).`,
        'model_not_chosen',
      );
    }
    const withModel = opts.model === undefined || opts.model === opened.model ? opened : engine.setSessionModel(id, opts.model);
    const meta = opts.agent === undefined ? withModel : await engine.setSessionAgent(id, opts.agent);
    const name = meta.title ?? meta.summary;
    const model = withModel === opened ? `model ${meta.model ?? '-'}` : `model changed from ${opened.model ?? '-'} to ${meta.model ?? '-'}`;
    const agent =
      meta.agent === opened.agent ? (meta.agent ? `, agent ${meta.agent}` : '') : `, agent changed from ${opened.agent ?? DEFAULT_AGENT} to ${meta.agent}`;
    view.line(`Session ${meta.id}${name ? ` (${name})` : ''}: ${messageCountText(meta)} so far, ${model}${agent}, in ${meta.project_dir ?? '-'}.${hint}`);
    return meta.id;
  }
  const meta = await engine.createSession();
  view.line(`Session ${meta.id} started in ${meta.cwd}${meta.agent ? `, agent ${meta.agent}` : ''}.${hint}`);
  return meta.id;
}

/** Each agent file of the session's folder that could not be used, or has a field Loom ignores: one line each, once per start. */
async function warnAboutAgents(engine: LoomEngine, sessionId: string): Promise<void> {
  for (const problem of (await engine.sessionAgents(sessionId)).problems) process.stderr.write(terminalSafe(`Agent file ${problemLine(problem)}\n`));
}

/** With --project, the folder is chosen first (refused for a session begun in a folder still there), then the session opens in it. */
async function openInFolder(engine: LoomEngine, id: string, project: string | undefined) {
  if (project !== undefined) await engine.setProject(id, project);
  return engine.openSession(id);
}

/** "In use by pid N", "its folder is gone": the engine says what is wrong; at the command line, also say what to do. */
function withAdvice(err: unknown, id: string): unknown {
  if (!isLoomError(err)) return err;
  if (err.code === 'session_in_use') {
    return new LoomError(`${err.message} Wait until that loom ends, or work on a copy: \`loom --fork ${id}\`, then resume the copy.`, err.code);
  }
  if (err.code === 'project_missing') {
    return new LoomError(`${err.message} Choose one with: loom --resume ${id} --project DIR`, err.code);
  }
  return err;
}

function mostRecentId(store: SessionStore): string {
  const recent = store.mostRecent();
  if (!recent) throw new LoomError('There is no session to continue; start one with `loom`.', 'no_session');
  return recent.id;
}

/** -p: one turn, the answer on stdout; Ctrl-C stops it. */
async function runPrompt(engine: LoomEngine, sessionId: string, prompt: string, input: LineInput | undefined): Promise<number> {
  let interrupted = false;
  const onInterrupt = () => {
    interrupted = true;
    engine.stop(sessionId);
    input?.cancel();
  };
  const removeInterrupt = onCtrlC(input, onInterrupt);
  try {
    const { error } = await engine.send(sessionId, prompt);
    if (interrupted) return INTERRUPTED_EXIT;
    return error ? 1 : 0;
  } finally {
    removeInterrupt();
  }
}

/** At a terminal, readline catches Ctrl-C itself; otherwise it arrives as a signal. */
function onCtrlC(input: LineInput | undefined, handler: () => void): () => void {
  return input ? input.onInterrupt(handler) : onSigint(handler);
}

function warnAboutSecrets(engine: LoomEngine): void {
  const names = engine.secretEnvNames();
  if (!names.length) return;
  process.stderr.write(
    terminalSafe(
      `Note: tools do not get the secret-looking environment variables ${names.join(', ')}; they get ${BASE_TOOL_ENV.join(', ')} and what --pass-env names.\n`,
    ),
  );
}

/** Files the agent wrote or edited can be put back as they were; the default is to keep them. */
async function offerRevert(engine: LoomEngine, sessionId: string, input: LineInput, view: TerminalView): Promise<void> {
  const changed = await engine.changedFiles(sessionId);
  if (!changed.length) return;
  view.line(`Files changed in this session:\n${changed.map((file) => `  ${path.relative(process.cwd(), file) || file}`).join('\n')}`);
  if (!isYes(await input.read(`Revert ${changed.length} changed file(s)? [y/N] `))) return;
  const { reverted, leftAlone } = await engine.revertChanges(sessionId);
  view.line(`Reverted ${reverted.length} file(s).`);
  for (const file of leftAlone) view.line(`Not reverted: ${file.reason}`);
}
