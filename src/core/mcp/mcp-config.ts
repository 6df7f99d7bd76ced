/**
 * `<data dir>/mcp.json` (or `--mcp-config FILE`): the MCP servers Loom starts, in the shape
 * Claude Desktop and Cursor use, plus Loom's own keys (docs/DESIGN.md#mcp-servers):
 *
 *   {"mcpServers": {
 *     "files": {"command": "npx", "args": ["-y", "some-mcp-server"], "env": {"TOKEN": "…"}, "readOnlyTools": ["list"]},
 *     "docs":  {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer …"}, "readOnly": true},
 *     "local": {"command": "./server", "sandbox": false, "disabled": true}
 *   }}
 *
 * The file is the source of truth. A missing file means no servers; a file that is not this
 * shape gives one line and no servers at all, never a half-read list.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { McpServerSettings } from '../../shared/mcp';
import { errorMessage } from '../errors';

const MCP_CONFIG_FILE = 'mcp.json';

/** How long a server may take to start and list its tools, unless it says otherwise. */
const DEFAULT_STARTUP_TIMEOUT_SEC = 20;

const commonFields = {
  /** Every tool of this server only reads: none of its calls is asked about. */
  readOnly: z.boolean().optional(),
  /** The tools (by the server's own names) that only read. */
  readOnlyTools: z.array(z.string().min(1).max(200)).max(1000).optional(),
  startupTimeoutSec: z.number().positive().max(600).optional(),
  /** Kept in the file but not started (the settings dialog's Disable). */
  disabled: z.boolean().optional(),
};

const stdioServerSchema = z.strictObject({
  command: z.string().min(1).max(4096),
  args: z.array(z.string().max(100_000)).max(1000).optional(),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name'), z.string().max(100_000)).optional(),
  /** false: start it outside the OS sandbox (shown in the settings and audited). */
  sandbox: z.boolean().optional(),
  ...commonFields,
});

const httpServerSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'an http or https URL' }),
  headers: z.record(z.string().min(1).max(1000), z.string().max(100_000)).optional(),
  /** Written by some tools beside `url`; Loom speaks Streamable HTTP only. */
  type: z.literal(['http', 'streamable-http']).optional(),
  ...commonFields,
});

/** Server names become part of tool names; the keys Claude Desktop users write fit. */
const serverName = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/);

const mcpFileSchema = z.strictObject({
  mcpServers: z.record(serverName, z.union([stdioServerSchema, httpServerSchema])),
});

export type StdioServerConfig = z.infer<typeof stdioServerSchema>;
export type HttpServerConfig = z.infer<typeof httpServerSchema>;
export type McpServerConfig = { name: string } & ({ transport: 'stdio'; stdio: StdioServerConfig } | { transport: 'http'; http: HttpServerConfig });

export type McpConfigOutcome = { servers: McpServerConfig[]; problem: null } | { servers: []; problem: string };

/** Reads and checks the file. `required`: a missing file is a problem (it was named with --mcp-config). */
export function loadMcpConfig(file: string, required = false): McpConfigOutcome {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (!required && (err as NodeJS.ErrnoException).code === 'ENOENT') return { servers: [], problem: null };
    return { servers: [], problem: `MCP servers not started: ${file} could not be read (${errorMessage(err)}).` };
  }
  return parseMcpConfig(text, file);
}

export function parseMcpConfig(text: string, file: string): McpConfigOutcome {
  const bad = (why: string): McpConfigOutcome => ({ servers: [], problem: `MCP servers not started: ${file} ${why}; fix it and start Loom again.` });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return bad(`is not valid JSON (${errorMessage(err)})`);
  }
  const parsed = mcpFileSchema.safeParse(value);
  if (!parsed.success) return bad(`is not an MCP configuration: ${firstIssue(parsed.error)}`);
  const servers = Object.entries(parsed.data.mcpServers).map(([name, entry]): McpServerConfig =>
    'command' in entry ? { name, transport: 'stdio', stdio: entry } : { name, transport: 'http', http: entry },
  );
  return { servers, problem: null };
}

/** The one issue the line names: where, and what was expected. */
function firstIssue(error: z.ZodError): string {
  const [issue] = error.issues;
  if (issue === undefined) return 'the top level: not an MCP server configuration';
  const where = issue.path.length ? issue.path.join('.') : 'the top level';
  if (issue.code === 'invalid_key') return `${where}: not a server name (letters, digits, _ . - only, at most 64)`;
  if (issue.code === 'invalid_union') return `${where}: a server needs either "command" (stdio) or "url" (HTTP), and only the known keys`;
  return `${where}: ${issue.message}`;
}

export function defaultMcpConfigFile(dataDir: string): string {
  return path.join(dataDir, MCP_CONFIG_FILE);
}

/** Whether a server's tool only reads, as the user marked it. */
export function isReadOnly(server: McpServerConfig, tool: string): boolean {
  const common = server.transport === 'stdio' ? server.stdio : server.http;
  return common.readOnly === true || (common.readOnlyTools ?? []).includes(tool);
}

/** The entry as the settings dialog edits it, without the values of env variables and headers. */
export function settingsOf(server: McpServerConfig): McpServerSettings {
  const common = server.transport === 'stdio' ? server.stdio : server.http;
  const shared = { readOnly: common.readOnly === true, readOnlyTools: common.readOnlyTools ?? [], disabled: common.disabled === true };
  if (server.transport === 'http') return { ...shared, transport: 'http', url: server.http.url, headerNames: Object.keys(server.http.headers ?? {}) };
  const { command, args = [], env = {}, sandbox } = server.stdio;
  return { ...shared, transport: 'stdio', command, args, envNames: Object.keys(env), sandbox: sandbox !== false };
}

export function isDisabled(server: McpServerConfig): boolean {
  return (server.transport === 'stdio' ? server.stdio : server.http).disabled === true;
}

export function startupTimeoutMs(server: McpServerConfig): number {
  const common = server.transport === 'stdio' ? server.stdio : server.http;
  return (common.startupTimeoutSec ?? DEFAULT_STARTUP_TIMEOUT_SEC) * 1000;
}
