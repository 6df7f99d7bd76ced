/**
 * The stdio transport for MCP servers Loom starts. The SDK's own StdioClientTransport
 * spawns the program itself; this one starts it the way run_bash commands start
 * (security/sandbox.ts: bubblewrap with its seccomp descriptor, the allowlisted
 * environment, its own process group), so that closing kills the server and everything it
 * started, and no process outlives Loom.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { filterStdio, handOverFilter, killTree, type SandboxedLaunch } from '../security/sandbox';
import { MAX_MESSAGE_BYTES, MessageTooLarge } from './message-cap';

/** What a server wrote on stderr last: enough to say why it failed, never all of it. */
const STDERR_TAIL_CHARS = 2000;
/** How long a server has to exit after SIGTERM before it is killed. */
const TERM_GRACE_MS = 2000;

/** The server wrote something that is not JSON-RPC: it is not an MCP server (or not only one). */
export class NotMcpError extends Error {}

export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | null = null;
  /** Holds a line whole until its newline comes: at most MAX_MESSAGE_BYTES of it. */
  private readonly buffer = new ReadBuffer({ maxBufferSize: MAX_MESSAGE_BYTES });
  private stderr = '';
  private exit: string | null = null;

  constructor(
    private readonly launch: SandboxedLaunch,
    private readonly cwd: string,
  ) {}

  /** The end of what the server wrote on stderr, trimmed. */
  stderrTail(): string {
    return this.stderr.trim();
  }

  /** How the process ended ("exit code 1", "signal SIGKILL"), or null while it runs. */
  exitDescription(): string | null {
    return this.exit;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const { file, args, env } = this.launch;
      const child = spawn(file, args, { cwd: this.cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe', ...filterStdio(this.launch)] });
      this.child = child;
      handOverFilter(child, this.launch);
      child.once('error', (err) => {
        this.exit ??= err.message;
        reject(err);
        this.onerror?.(err);
      });
      child.once('spawn', () => resolve());
      child.once('close', (code, signal) => {
        this.exit ??= signal ? `signal ${signal}` : `exit code ${code}`;
        this.child = null;
        this.onclose?.();
      });
      child.stdin?.on('error', (err) => this.onerror?.(err));
      child.stdout?.on('data', (chunk: Buffer) => this.receive(chunk));
      child.stderr?.on('data', (chunk: Buffer) => {
        this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin?.writable) return Promise.reject(new Error('the server is not running'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Closes stdin and asks the whole process group to end; whatever is left after the grace is killed. */
  close(): Promise<void> {
    const child = this.child;
    if (!child) return Promise.resolve();
    child.stdin?.end();
    killTree(child, 'SIGTERM');
    const timer = setTimeout(() => killTree(child, 'SIGKILL'), TERM_GRACE_MS);
    timer.unref();
    return new Promise((resolve) => {
      child.once('close', () => {
        clearTimeout(timer);
        // Descendants that ignored SIGTERM share the group: they go now.
        killTree(child, 'SIGKILL');
        resolve();
      });
    });
  }

  /** Lines that are not JSON-RPC, or too long to hold, end the connection: the server speaks something else. */
  private receive(chunk: Buffer): void {
    try {
      // append throws only when the line would grow past the cap.
      this.buffer.append(chunk);
    } catch {
      return this.disconnect(new MessageTooLarge());
    }
    try {
      for (let message = this.buffer.readMessage(); message; message = this.buffer.readMessage()) this.onmessage?.(message);
    } catch (err) {
      this.disconnect(new NotMcpError(`it wrote something that is not an MCP message on stdout (${firstLine(err)})`));
    }
  }

  private disconnect(reason: Error): void {
    // What it writes until it has stopped is not read.
    this.child?.stdout?.removeAllListeners('data');
    this.onerror?.(reason);
    void this.close();
  }
}

function firstLine(err: unknown): string {
  const [line = ''] = (err instanceof Error ? err.message : String(err)).split('\n'); // split gives at least one line
  return line.slice(0, 200);
}
