/**
 * The MCP servers of one engine: started together, each within its startup timeout; their
 * tools as Loom tools (mcp-tool.ts); closed together when the engine closes. A server
 * that cannot be started, hangs or answers with something that is not MCP gets one line
 * (its status message) and Loom goes on without it. An edited file is applied server by
 * server (`apply`): only what changed is stopped or started; `restart` starts one again.
 */
import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { mcpProblems, type McpOverview, type McpServerStatus } from '../../shared/mcp';
import { errorMessage } from '../errors';
import { sandboxedLaunch } from '../security/sandbox';
import type { Tool } from '../tools/tool';
import { isDisabled, settingsOf, startupTimeoutMs, type McpConfigOutcome, type McpServerConfig } from './mcp-config';
import { mcpTool } from './mcp-tool';
import { ToolNames } from './tool-names';
import { cappedFetch, MessageTooLarge } from './message-cap';
import { NotMcpError, ProcessTransport } from './process-transport';

/** More tools than any real server lists: a server listing without end is cut here. */
const MAX_TOOLS_PER_SERVER = 500;

export interface McpStartOptions {
  /** The file the configuration came from, and what loadMcpConfig read in it. */
  configFile: string;
  config: McpConfigOutcome;
  /** The project folder: a stdio server's working folder, and the one folder its sandbox may write. */
  projectDir: string;
  passEnv?: readonly string[];
  clientVersion: string;
  /** The names of Loom's own tools: no MCP tool is offered under one of them. */
  builtInToolNames: readonly string[];
}

interface Connection {
  client: Client;
  server: McpServerConfig;
  status: McpServerStatus;
  /** What the server listed; its tools are named once every server has started (`withTools`). */
  listed: McpToolInfo[];
  tools: Tool[];
}

export class McpServers {
  private constructor(
    private readonly opts: McpStartOptions,
    private problem: string | null,
    private connections: Connection[],
  ) {}

  /** Starts every server of the configuration, side by side. Never throws. */
  static async start(opts: McpStartOptions): Promise<McpServers> {
    const started = await Promise.all(opts.config.servers.map((server) => connect(server, opts)));
    return new McpServers(opts, opts.config.problem, named(started, opts));
  }

  /**
   * Takes on an edited configuration: a server whose entry is unchanged keeps running, a
   * new or changed one is started, a removed or disabled one stopped. Never throws.
   */
  async apply(config: McpConfigOutcome): Promise<void> {
    const running = new Map(this.connections.map((c) => [c.server.name, c]));
    const next = await Promise.all(
      config.servers.map((server) => {
        const current = running.get(server.name);
        if (current && sameEntry(current.server, server)) return Promise.resolve(current);
        return connect(server, this.opts);
      }),
    );
    const kept = new Set(next);
    await Promise.all(this.connections.filter((c) => !kept.has(c)).map(disconnect));
    this.problem = config.problem;
    this.connections = named(next, this.opts);
  }

  /** Stops server `name` and starts it again from its entry (a server that stopped or failed gets another try). */
  async restart(name: string): Promise<void> {
    const current = this.connections.find((c) => c.server.name === name);
    if (!current) return;
    await disconnect(current);
    const fresh = await connect(current.server, this.opts);
    this.connections = named(
      this.connections.map((c) => (c === current ? fresh : c)),
      this.opts,
    );
  }

  /** The tools of the servers that started, in the file's order. */
  tools(): Tool[] {
    return this.connections.flatMap((c) => (c.status.state === 'connected' ? c.tools : []));
  }

  overview(): McpOverview {
    return { configFile: this.opts.configFile, problem: this.problem, servers: this.connections.map((c) => ({ ...c.status })) };
  }

  problems(): string[] {
    return mcpProblems(this.overview());
  }

  /** Ends every connection; a stdio server's whole process group is told to stop at once. */
  async close(): Promise<void> {
    await Promise.all(this.connections.map(disconnect));
  }
}

/** Named in the file's order, whichever server answered first: the same file gives the same names. */
function named(connections: Connection[], opts: McpStartOptions): Connection[] {
  const names = new ToolNames(opts.builtInToolNames);
  return connections.map((connection) => withTools(connection, names));
}

function sameEntry(a: McpServerConfig, b: McpServerConfig): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function disconnect(connection: Connection): Promise<void> {
  connection.client.onclose = undefined; // stopped on purpose, not a server that went away
  return connection.client.close().catch(() => {});
}

async function connect(server: McpServerConfig, opts: McpStartOptions): Promise<Connection> {
  const status: McpServerStatus = {
    name: server.name,
    transport: server.transport,
    state: isDisabled(server) ? 'disabled' : 'connecting',
    sandboxed: null,
    tools: [],
    message: null,
    settings: settingsOf(server),
  };
  const client = new Client({ name: 'loom', version: opts.clientVersion });
  if (status.state === 'disabled') return { client, server, status, listed: [], tools: [] };
  let firstError: Error | null = null;
  // What broke the protocol is the reason, whatever came before it.
  client.onerror = (err) => (firstError = protocolFault(err) ?? firstError ?? err);
  let transport: Transport | null = null;
  try {
    transport = await transportFor(server, opts, status);
    const timeoutMs = startupTimeoutMs(server);
    const listed = await withinDeadline(timeoutMs, () => handshake(client, transport!, timeoutMs));
    status.state = 'connected';
    client.onclose = () => stopped(status, transport, firstError);
    return { client, server, status, listed, tools: [] };
  } catch (err) {
    await client.close().catch(() => {});
    status.state = 'failed';
    status.message = `MCP server "${server.name}" could not be started: ${failureReason(err, transport, firstError)}; Loom goes on without it.`;
    return { client, server, status, listed: [], tools: [] };
  }
}

/** The server's tools under names unique among all servers and Loom's own; the line saying which were renamed or dropped becomes its message. */
function withTools(connection: Connection, names: ToolNames): Connection {
  const { client, server, status, listed } = connection;
  if (status.state === 'failed' || status.state === 'disabled') return connection;
  const named = names.nameServer(
    server.name,
    listed.map((info) => info.name),
  );
  const tools = listed.flatMap((info, i) => {
    const name = named.names[i] ?? null; // a tool without a name is not offered
    return name === null ? [] : [mcpTool(server, info, client, name, () => (status.state === 'stopped' ? status.message : null))];
  });
  status.tools = tools.map((t) => ({ name: t.name, readOnly: t.effects.kind === 'read' }));
  // A server that stopped meanwhile keeps the line saying so.
  status.message ??= named.notice;
  return { ...connection, tools };
}

/** A server that exits after it started: its tools answer with this line from now on. */
function stopped(status: McpServerStatus, transport: Transport | null, firstError: Error | null): void {
  if (status.state !== 'connected') return;
  status.state = 'stopped';
  status.message = `MCP server "${status.name}" stopped: ${exitReason(transport, firstError) ?? 'the connection closed'}.`;
}

async function transportFor(server: McpServerConfig, opts: McpStartOptions, status: McpServerStatus): Promise<Transport> {
  if (server.transport === 'http') {
    const transport: StreamableHTTPClientTransport = new StreamableHTTPClientTransport(new URL(server.http.url), {
      requestInit: { headers: server.http.headers ?? {} },
      fetch: cappedFetch((err) => {
        transport.onerror?.(err);
        void transport.close();
      }),
    });
    return transport;
  }
  const { command, args = [], env = {}, sandbox } = server.stdio;
  // The real path: the sandbox makes exactly that folder writable.
  const projectDir = await fs.promises.realpath(opts.projectDir);
  const launch = await sandboxedLaunch([command, ...args], {
    cwd: projectDir,
    sandbox: sandbox !== false,
    passEnv: opts.passEnv,
    extraEnv: env,
  });
  status.sandboxed = launch.sandboxed;
  return new ProcessTransport(launch, projectDir);
}

async function handshake(client: Client, transport: Transport, timeoutMs: number): Promise<McpToolInfo[]> {
  await client.connect(transport, { timeout: timeoutMs });
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: timeoutMs });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined && tools.length < MAX_TOOLS_PER_SERVER);
  return tools.slice(0, MAX_TOOLS_PER_SERVER);
}

class StartupTimeout extends Error {}

/** The whole start (spawn or connect, handshake, listing) within one bound, whatever part hangs. */
async function withinDeadline<T>(ms: number, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StartupTimeout(`it did not answer within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([work(), expired]);
  } finally {
    clearTimeout(timer);
  }
}

function failureReason(err: unknown, transport: Transport | null, firstError: Error | null): string {
  // After a timeout the errors of the closing connection say nothing new; output that is not MCP does.
  if (err instanceof StartupTimeout) return protocolFault(firstError)?.message ?? err.message;
  const spawnFailure = (err as NodeJS.ErrnoException).code === 'ENOENT' && transport instanceof ProcessTransport;
  if (spawnFailure) return `its command was not found (${errorMessage(err)})`;
  return exitReason(transport, firstError) ?? errorMessage(err);
}

/** Why a stdio server ended (its exit and the end of its stderr), or the transport's first error. */
function exitReason(transport: Transport | null, firstError: Error | null): string | null {
  const fault = protocolFault(firstError);
  if (fault) return fault.message;
  if (transport instanceof ProcessTransport && transport.exitDescription()) {
    const tail = transport.stderrTail().split('\n').at(-1);
    return `it exited (${transport.exitDescription()})${tail ? `: ${tail}` : ''}`;
  }
  return firstError?.message ?? null;
}

/** The server sent what is not MCP, or a message too large to read: it was disconnected for it. */
function protocolFault(err: Error | null): Error | null {
  return err instanceof NotMcpError || err instanceof MessageTooLarge ? err : null;
}
