/**
 * The MCP servers of mcp.json and how each is doing (docs/DESIGN.md#mcp-servers), in the
 * settings dialog: added, edited, disabled, restarted and removed here, each change saved to
 * the file at once and applied (only that server starts or stops). The file stays the
 * source of truth, and its secrets stay in it.
 */
import { useEffect, useState } from 'react';
import { createPortal } from 'react-dom';
import type { McpOverview, McpServerStatus, MethodInput } from '../../shared/contract';
import { useBridge } from '../bridge/context';
import { errorMessage } from '../lib/errors';
import { editOf, formOf } from '../lib/mcp-form';
import { Dialog } from './Dialog';
import { McpServerDialog } from './McpServerDialog';

const STATE_LABELS: Record<McpServerStatus['state'], string> = {
  connecting: 'Starting',
  connected: 'Running',
  failed: 'Failed to start',
  stopped: 'Stopped',
  disabled: 'Disabled',
};

type Editing = { kind: 'add' } | { kind: 'edit'; server: McpServerStatus } | { kind: 'remove'; server: McpServerStatus };

export function McpServersSection() {
  const bridge = useBridge();
  const [overview, setOverview] = useState<McpOverview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<Editing | null>(null);
  /** The server an action is under way for: its buttons wait. */
  const [busy, setBusy] = useState<string | null>(null);
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

  /** Runs a change; the servers as they are after it replace the list. A refusal is thrown for the dialog that asked, or shown here. */
  const change = async (name: string, action: () => Promise<McpOverview>): Promise<void> => {
    setBusy(name);
    setError(null);
    try {
      setOverview(await action());
    } finally {
      setBusy(null);
    }
  };
  const act = (name: string, action: () => Promise<McpOverview>) => change(name, action).catch((err: unknown) => setError(errorMessage(err)));
  const save = (input: MethodInput<'settings.mcpSave'>) => change(input.name, () => bridge.invoke('settings.mcpSave', input));
  const setDisabled = (server: McpServerStatus, disabled: boolean) => {
    const edited = editOf({ ...formOf(server.name, server.settings), disabled });
    if ('error' in edited) return setError(edited.error);
    void act(server.name, () => bridge.invoke('settings.mcpSave', { name: server.name, server: edited.edit }));
  };

  return (
    <section className="mcp-servers" aria-labelledby="mcp-servers-title">
      <h3 id="mcp-servers-title">MCP servers</h3>
      {error && <p role="alert">{error}</p>}
      {overview?.problem && <p role="alert">{overview.problem}</p>}
      {overview && !overview.problem && overview.servers.length === 0 && <p className="hint">No MCP servers are configured.</p>}
      {overview && overview.servers.length > 0 && (
        <ul aria-label="MCP servers">
          {overview.servers.map((server) => (
            <li key={server.name} aria-label={server.name} aria-busy={busy === server.name}>
              <strong>{server.name}</strong> <span className="mcp-state">{busy === server.name ? 'Working…' : STATE_LABELS[server.state]}</span>
              <span className="mcp-facts">{facts(server)}</span>
              {server.message && <span className="mcp-message">{server.message}</span>}
              <span className="mcp-actions">
                <button
                  type="button"
                  className="small"
                  disabled={busy !== null}
                  onClick={() => setEditing({ kind: 'edit', server })}
                  aria-label={`Edit ${server.name}`}
                >
                  Edit
                </button>
                {server.state !== 'disabled' && (
                  <button
                    type="button"
                    className="small"
                    disabled={busy !== null}
                    onClick={() => void act(server.name, () => bridge.invoke('settings.mcpRestart', { name: server.name }))}
                    aria-label={`Restart ${server.name}`}
                  >
                    Restart
                  </button>
                )}
                <button
                  type="button"
                  className="small"
                  disabled={busy !== null}
                  onClick={() => setDisabled(server, server.state !== 'disabled')}
                  aria-label={`${server.state === 'disabled' ? 'Enable' : 'Disable'} ${server.name}`}
                >
                  {server.state === 'disabled' ? 'Enable' : 'Disable'}
                </button>
                <button
                  type="button"
                  className="small"
                  disabled={busy !== null}
                  onClick={() => setEditing({ kind: 'remove', server })}
                  aria-label={`Remove ${server.name}`}
                >
                  Remove
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
      {overview && !overview.problem && (
        <button type="button" className="small" disabled={busy !== null} onClick={() => setEditing({ kind: 'add' })}>
          Add MCP server…
        </button>
      )}
      {overview && (
        <p className="hint">
          Saved in <code>{overview.configFile}</code> (the Claude Desktop shape), and applied at once; tools are asked about unless marked read-only.
        </p>
      )}
      {/* Outside the settings dialog's form in the page: a form holds no form. */}
      {editing &&
        createPortal(
          editing.kind === 'remove' ? (
            <RemoveDialog
              name={editing.server.name}
              onClose={() => setEditing(null)}
              onRemove={() => {
                setEditing(null);
                void act(editing.server.name, () => bridge.invoke('settings.mcpRemove', { name: editing.server.name }));
              }}
            />
          ) : (
            <McpServerDialog existing={editing.kind === 'edit' ? editing.server : null} onSave={save} onClose={() => setEditing(null)} />
          ),
          document.body,
        )}
    </section>
  );
}

function RemoveDialog({ name, onClose, onRemove }: { name: string; onClose: () => void; onRemove: () => void }) {
  return (
    <Dialog title="Remove MCP server" onClose={onClose}>
      <p>
        Remove <strong>{name}</strong> from the configuration and stop it? Its entry, with any environment values or headers saved in it, is deleted from the
        file.
      </p>
      <div className="dialog-actions">
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="danger" onClick={onRemove}>
          Remove
        </button>
      </div>
    </Dialog>
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
