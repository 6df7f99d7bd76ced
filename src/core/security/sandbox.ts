/**
 * Runs run_bash commands. With bubblewrap (Linux) the command sees the system read-only,
 * the project folder read-write and nothing of the home folder, /var, /run or /tmp (what
 * exactly: bwrap-args.ts); it has its own process, IPC, user and network namespaces (no
 * network unless allowed), no capabilities, cannot set setuid bits (seccomp.ts), and dies
 * with Loom. Without bubblewrap the command runs unconfined and the result says so plainly.
 *
 * Either way the command gets an allowlisted environment (tool-env.ts), the whole process
 * tree is killed on timeout or abort, and output is capped while it is read.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { bwrapArgs, type SandboxView } from './bwrap-args';
import { noSetIdFilter } from './seccomp';
import { toolEnv } from './tool-env';

export interface ShellOptions {
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Let the command reach the network (only meaningful inside the sandbox). */
  network?: boolean;
  /** false forces the unconfined path (tests; LOOM_SANDBOX=off does the same). */
  sandbox?: boolean;
  /** The environment the allowlist picks from; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Names of variables passed to the command on top of the base allowlist. */
  passEnv?: readonly string[];
}

export interface ShellResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
  /** The abort signal stopped the command. */
  aborted: boolean;
  sandboxed: boolean;
  sandboxNote?: string;
}

/** Per stream; a runaway `yes` must not fill memory. */
export const MAX_OUTPUT_BYTES = 1024 * 1024;

export const NO_SANDBOX_NOTE = 'No OS sandbox available (install bubblewrap); the command ran unconfined.';
export const SANDBOX_OFF_NOTE = 'OS sandbox turned off; the command ran unconfined.';

/** The seccomp filter for this machine (null where its architecture is unknown). */
const SET_ID_FILTER = noSetIdFilter();
/** The descriptor a sandboxed command's bubblewrap reads it from. */
const SECCOMP_FD = 3;

/** How bubblewrap can be used here (user namespace, seccomp filter), or null when it cannot. */
type Support = { userNamespace: boolean; seccomp: boolean };
let support: Support | null | undefined;

/** Whether bubblewrap is installed and can create namespaces here; checked once. */
export function sandboxAvailable(): boolean {
  return sandboxSupport() !== null;
}

/** Whether commands run now are wrapped: bubblewrap works here and LOOM_SANDBOX=off is not set. */
export function sandboxInEffect(): boolean {
  return process.env.LOOM_SANDBOX !== 'off' && sandboxAvailable();
}

/**
 * The strongest sandbox this kernel allows. One that refuses user namespaces or seccomp
 * still gets the other namespaces and no capabilities: far better than none at all.
 * The probe hands the seccomp filter over on standard input; real runs use descriptor 3.
 */
function sandboxSupport(): Support | null {
  if (support === undefined) {
    const works = ({ userNamespace, seccomp }: Support) => {
      const view: SandboxView = { project: null, network: false, userNamespace, ...(seccomp ? { seccompFd: 0 } : {}) };
      const input = seccomp ? SET_ID_FILTER! : '';
      return spawnSync('bwrap', [...bwrapArgs(view), 'true'], { input, stdio: ['pipe', 'ignore', 'ignore'], timeout: 10_000 }).status === 0;
    };
    const candidates: Support[] = [true, false].flatMap((seccomp) => [true, false].map((userNamespace) => ({ userNamespace, seccomp })));
    support = candidates.filter((c) => !c.seccomp || SET_ID_FILTER).find(works) ?? null;
  }
  return support;
}

let resolverDir: string | undefined;

/** The folder /etc/resolv.conf really lives in (often under /run), for commands allowed the network. */
function resolverFolder(): string | undefined {
  try {
    resolverDir ??= path.dirname(fs.realpathSync('/etc/resolv.conf'));
  } catch {
    // No resolver configuration: nothing to keep visible.
  }
  return resolverDir;
}

/**
 * What bwrap-args needs to know about this command. bubblewrap cannot mount over a home
 * folder that does not exist (service accounts have HOME=/nonexistent) nor bind a PATH
 * folder this user cannot enter, so those are left out rather than failing every command.
 */
async function sandboxView(options: LaunchOptions, env: NodeJS.ProcessEnv, userNamespace: boolean): Promise<SandboxView> {
  const network = options.network ?? false;
  const [home, searchPath] = await Promise.all([existingFolder(env.HOME), enterableFolders(env.PATH)]);
  return {
    project: options.cwd,
    network,
    userNamespace,
    home,
    searchPath,
    ...(network ? { resolverDir: resolverFolder() } : {}),
  };
}

async function existingFolder(folder: string | undefined): Promise<string | undefined> {
  if (!folder) return undefined;
  const stat = await fs.promises.stat(folder).catch(() => null);
  return stat?.isDirectory() ? folder : undefined;
}

async function enterableFolders(searchPath: string | undefined): Promise<string> {
  const entries = (searchPath ?? '').split(':').filter(Boolean);
  const enterable = await Promise.all(
    entries.map((entry) =>
      fs.promises.access(entry, fs.constants.X_OK).then(
        () => true,
        () => false,
      ),
    ),
  );
  return entries.filter((_, i) => enterable[i]).join(':');
}

/** A program to start, confined as run_bash commands are (or not, and why). */
export interface SandboxedLaunch {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  sandboxed: boolean;
  /** Why it runs unconfined, when it does. */
  note?: string;
  /** The seccomp filter to hand over on descriptor SECCOMP_FD (see handOverFilter), or null. */
  filter: Buffer | null;
}

export type LaunchOptions = Omit<ShellOptions, 'timeoutMs' | 'signal'> & { extraEnv?: Record<string, string> };

/**
 * How to start `argv` in the sandbox (the project folder `cwd` writable, no network unless
 * allowed) with the allowlisted environment plus `extraEnv` (an MCP server's own variables).
 */
export async function sandboxedLaunch(argv: [string, ...string[]], options: LaunchOptions): Promise<SandboxedLaunch> {
  const turnedOff = options.sandbox === false || process.env.LOOM_SANDBOX === 'off';
  const bwrap = turnedOff ? null : sandboxSupport();
  const env = { ...toolEnv(options.env ?? process.env, options.passEnv), ...options.extraEnv };
  const filter = bwrap?.seccomp ? SET_ID_FILTER : null;
  const view = bwrap ? { ...(await sandboxView(options, env, bwrap.userNamespace)), ...(filter ? { seccompFd: SECCOMP_FD } : {}) } : null;
  const [file, ...args]: [string, ...string[]] = view ? ['bwrap', ...bwrapArgs(view), '--', ...argv] : argv;
  const note = bwrap ? undefined : turnedOff ? SANDBOX_OFF_NOTE : NO_SANDBOX_NOTE;
  return { file, args, env, sandboxed: bwrap !== null, filter, ...(note ? { note } : {}) };
}

/** The stdio entry for the seccomp filter's descriptor, after stdin, stdout and stderr. */
export function filterStdio(launch: SandboxedLaunch): 'pipe'[] {
  return launch.filter ? ['pipe'] : [];
}

/** Writes the filter for bubblewrap to read; a bubblewrap that died first is reported by its exit. */
export function handOverFilter(child: ChildProcess, launch: SandboxedLaunch): void {
  if (launch.filter) handOver(child.stdio[SECCOMP_FD] as Writable, launch.filter);
}

export async function runShell(command: string, options: ShellOptions): Promise<ShellResult> {
  const launch = await sandboxedLaunch(['bash', '-c', command], options);
  const child = spawn(launch.file, launch.args, {
    cwd: options.cwd,
    env: launch.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', ...filterStdio(launch)],
  });
  handOverFilter(child, launch);
  const result = await collect(child, options);
  return { ...result, sandboxed: launch.sandboxed, ...(launch.note ? { sandboxNote: launch.note } : {}) };
}

/** Writes the filter for bubblewrap to read; a bubblewrap that died first is reported by collect. */
function handOver(stream: Writable, filter: Buffer): void {
  stream.on('error', () => {});
  stream.end(filter);
}

type Collected = Omit<ShellResult, 'sandboxed' | 'sandboxNote'>;

function collect(child: ChildProcess, options: ShellOptions): Promise<Collected> {
  return new Promise((resolve) => {
    const stdout = new CappedText();
    const stderr = new CappedText();
    let timedOut = false;
    let aborted = false;
    child.stdout?.on('data', (chunk: Buffer) => stdout.add(chunk));
    child.stderr?.on('data', (chunk: Buffer) => stderr.add(chunk));

    const timer = setTimeout(() => {
      timedOut = true;
      killTree(child);
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      killTree(child);
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });

    // Background jobs left behind would keep the pipes open and outlive the tool call.
    child.on('exit', () => killTree(child));
    let done = false;
    const finish = (code: number | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      const killed = timedOut || aborted;
      resolve({ stdout: stdout.text(), stderr: stderr.text(), exitCode: killed ? null : code, timedOut, aborted });
    };
    child.on('error', (err) => {
      stderr.add(Buffer.from(`${err.message}\n`));
      finish(null);
    });
    child.on('close', (code) => finish(code));
  });
}

/** The child leads its own process group (detached), so one signal reaches every descendant. */
export function killTree(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

class CappedText {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = 0;

  add(chunk: Buffer): void {
    const room = MAX_OUTPUT_BYTES - this.size;
    if (room > 0) {
      const kept = chunk.subarray(0, room);
      this.chunks.push(kept);
      this.size += kept.length;
    }
    this.dropped += Math.max(0, chunk.length - Math.max(0, room));
  }

  text(): string {
    const text = Buffer.concat(this.chunks).toString('utf8');
    return this.dropped ? `${text}\n[output cut: ${this.dropped} more bytes not kept]` : text;
  }
}
