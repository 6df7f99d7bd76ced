/**
 * The MCP servers of mcp.json and how each is doing (docs/DESIGN.md#mcp-servers), in the
 * settings dialog. Shown, not edited here: the file is the source of truth, read when Loom
 * starts, so the section names it.
 */
import { useEffect, useState } from 'react';
import type { McpOverview, McpServerStatus } from '../../shared/contract';
import { useBridge } from '../bridge/context';
import { errorMessage } from '../lib/errors';

const STATE_LABELS: Record<McpServerStatus['state'], string> = {
  connecting: 'Starting',
  connected: 'Running',
  failed: 'Failed to start',
  stopped: 'Stopped',
};

export function McpServersSection() {
  const bridge = useBridge();
  const [overview, setOverview] = useState<McpOverview | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    bridge.invoke('settings.mcpServers', {}).then(
      (value) => current && setOverview(value),
      (err: unknown) => current && setError(errorMessage(err)),
    );
    return () => {
      current = false;
    };
  }, [bridge]);

  return (
    <section className="mcp-servers" aria-labelledby="mcp-servers-title">
      <h3 id="mcp-servers-title">MCP servers</h3>
      {error && <p role="alert">{error}</p>}
      {overview?.problem && <p role="alert">{overview.problem}</p>}
      {overview && !overview.problem && overview.servers.length === 0 && <p className="hint">No MCP servers are configured.</p>}
      {overview && overview.servers.length > 0 && (
        <ul aria-label="MCP servers">
          {overview.servers.map((server) => (
            <li key={server.name} aria-label={server.name}>
              <strong>{server.name}</strong> <span className="mcp-state">{STATE_LABELS[server.state]}</span>
              <span className="mcp-facts">{facts(server)}</span>
              {server.message && <span className="mcp-message">{server.message}</span>}
            </li>
          ))}
        </ul>
      )}
      {overview && (
        <p className="hint">
          Servers are set in <code>{overview.configFile}</code> (the Claude Desktop shape) and start with Loom; their tools are asked about unless marked
          read-only there.
        </p>
      )}
    </section>
  );
}

/** "stdio, sandboxed, 3 tools (1 read-only)". */
function facts(server: McpServerStatus): string {
  const where = server.transport === 'http' ? 'HTTP' : server.sandboxed ? 'stdio, sandboxed' : 'stdio, not sandboxed';
  if (server.state !== 'connected') return where;
  const readOnly = server.tools.filter((t) => t.readOnly).length;
  const tools = `${server.tools.length} tool${server.tools.length === 1 ? '' : 's'}`;
  return `${where}, ${readOnly ? `${tools} (${readOnly} read-only)` : tools}`;
}
