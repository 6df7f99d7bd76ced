/**
 * run_bash: one shell command in the project folder, through the OS sandbox when there
 * is one. The shell denylist is checked here too, so the hard policy holds even for a
 * caller that skipped permissions.decide.
 */
import { z } from 'zod';
import { LoomError } from '../errors';
import { checkShellCommand } from '../security/policy';
import { runShell, type ShellResult } from '../security/sandbox';
import { defineTool } from './tool';

/** Per stream; the head shows what started, the tail how it ended. */
const MAX_STREAM_CHARS = 15_000;

export function clipMiddle(text: string, max: number = MAX_STREAM_CHARS): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  const cut = text.length - 2 * half;
  return `${text.slice(0, half)}\n[… ${cut} characters cut …]\n${text.slice(-half)}`;
}

/** What the model needs to know about where the command ran. */
function sandboxLine(out: ShellResult, network: boolean): string {
  if (out.sandboxNote) return `[Sandbox: ${out.sandboxNote}]`;
  if (!out.sandboxed) return '[Sandbox: none; the command ran unconfined.]';
  return `[Sandbox: only the project folder keeps what is written; the home folder (but for toolchains on PATH), /tmp, /var and /run are private and start empty; network ${network ? 'allowed' : 'off'}.]`;
}

function formatShellOutcome(out: ShellResult, timeoutMs: number, network: boolean): string {
  const parts: string[] = [];
  const code = out.exitCode === null ? 'none (the process was killed)' : String(out.exitCode);
  parts.push(`Exit code: ${code}`);
  if (out.stdout) parts.push(`--- stdout ---\n${clipMiddle(out.stdout.replace(/\n$/, ''))}`);
  if (out.stderr) parts.push(`--- stderr ---\n${clipMiddle(out.stderr.replace(/\n$/, ''))}`);
  if (!out.stdout && !out.stderr) parts.push('(no output)');
  if (out.timedOut) parts.push(`[Timed out after ${Math.ceil(timeoutMs / 1000)} s; the command was stopped.]`);
  if (out.aborted) parts.push('[Stopped: the user cancelled the turn.]');
  parts.push(sandboxLine(out, network));
  return parts.join('\n');
}

export const runBashTool = defineTool({
  name: 'run_bash',
  description:
    'Run a bash command in the project folder and return its exit code, stdout and stderr. ' +
    'Runs in an OS sandbox when available (project folder writable, home folder hidden, no network unless allowed). ' +
    'Non-interactive: no input is given.',
  effects: { kind: 'run-commands', command: (args) => args.command },
  schema: z.strictObject({
    command: z.string().min(1).max(20_000).describe('The bash command line.'),
  }),
  async run({ command }, ctx) {
    const check = await checkShellCommand(command);
    if (check.verdict === 'block') {
      throw new LoomError(`Blocked by policy${check.label ? ` (${check.label})` : ''}: this command is never run.`);
    }
    const network = ctx.allowNetworkInShell ?? false;
    const outcome = await runShell(command, { cwd: ctx.projectDir, timeoutMs: ctx.toolTimeoutMs, signal: ctx.signal, network, passEnv: ctx.passEnv });
    return formatShellOutcome(outcome, ctx.toolTimeoutMs, network);
  },
});
