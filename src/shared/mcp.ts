/**
 * How each configured MCP server is doing (docs/DESIGN.md#mcp-servers), as the settings
 * dialog and the audit log show it. Plain data: it crosses IPC and HTTP unchanged.
 */
export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  /** connecting: starting up; connected: its tools are offered; failed: it never started; stopped: it ended after starting; disabled: kept in the file, not started. */
  state: 'connecting' | 'connected' | 'failed' | 'stopped' | 'disabled';
  /** stdio servers: whether it runs in the OS sandbox; null for HTTP servers. */
  sandboxed: boolean | null;
  /** The tools it offers, by the names the model calls them. */
  tools: { name: string; readOnly: boolean }[];
  /** The one line that says what went wrong (failed, stopped) or, connected, which of its tools were renamed or dropped; else null. */
  message: string | null;
  /** Its entry in the file, as the settings dialog edits it: secrets (env and header values) never leave the file. */
  settings: McpServerSettings;
}

/** The keys of an mcp.json entry that the settings dialog edits (docs/DESIGN.md#mcp-servers). */
interface McpCommonSettings {
  readOnly: boolean;
  readOnlyTools: string[];
  disabled: boolean;
}

/**
 * An entry as the dialog shows it: environment variables and headers by name only, their
 * values staying in the file (an API token is as secret there as the model server's key).
 */
export type McpServerSettings = McpCommonSettings &
  ({ transport: 'stdio'; command: string; args: string[]; envNames: string[]; sandbox: boolean } | { transport: 'http'; url: string; headerNames: string[] });

/** A value the dialog did not retype: the one saved under that name is kept. */
export const KEEP_SAVED_VALUE = null;

/** An entry as the dialog saves it: each env variable or header with a new value, or KEEP_SAVED_VALUE. */
export type McpServerEdit = McpCommonSettings &
  (
    | { transport: 'stdio'; command: string; args: string[]; env: Record<string, string | null>; sandbox: boolean }
    | { transport: 'http'; url: string; headers: Record<string, string | null> }
  );

/** What Loom knows of its MCP servers: the file it read, and why it read none (a bad file). */
export interface McpOverview {
  configFile: string;
  problem: string | null;
  servers: McpServerStatus[];
}

/** The lines to tell the user, once per run: a bad file, each server that failed or stopped. */
export function mcpProblems(overview: McpOverview): string[] {
  const lines = overview.servers.flatMap((server) => (server.message ? [server.message] : []));
  return overview.problem ? [overview.problem, ...lines] : lines;
}
