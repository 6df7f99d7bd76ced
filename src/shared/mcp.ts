/**
 * How each configured MCP server is doing (docs/DESIGN.md#mcp-servers), as the settings
 * dialog and the audit log show it. Plain data: it crosses IPC and HTTP unchanged.
 */
export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  /** connecting: starting up; connected: its tools are offered; failed: it never started; stopped: it ended after starting. */
  state: 'connecting' | 'connected' | 'failed' | 'stopped';
  /** stdio servers: whether it runs in the OS sandbox; null for HTTP servers. */
  sandboxed: boolean | null;
  /** The tools it offers, by the names the model calls them. */
  tools: { name: string; readOnly: boolean }[];
  /** The one line that says what went wrong (failed, stopped) or, connected, which of its tools were renamed or dropped; else null. */
  message: string | null;
}

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
