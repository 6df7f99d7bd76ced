/**
 * Adding or editing one MCP server (docs/DESIGN.md#mcp-servers): a stdio command or an
 * HTTP URL, its environment variables or headers (saved values stay in the file, shown as
 * ***), which tools only read, the sandbox, and whether it starts. Saving writes mcp.json
 * and starts the server; a refusal is said here and nothing is saved.
 */
import { useState } from 'react';
import type { McpServerStatus, MethodInput } from '../../shared/contract';
import { errorMessage } from '../lib/errors';
import { EMPTY_MCP_FORM, editOf, formOf, SAVED_VALUE_MARK, type McpForm } from '../lib/mcp-form';
import { Dialog } from './Dialog';

export function McpServerDialog({
  existing,
  onSave,
  onClose,
}: {
  existing: McpServerStatus | null;
  onSave: (input: MethodInput<'settings.mcpSave'>) => Promise<void>;
  onClose: () => void;
}) {
  const [form, setForm] = useState<McpForm>(existing ? formOf(existing.name, existing.settings) : EMPTY_MCP_FORM);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const set = (patch: Partial<McpForm>) => {
    setForm((f) => ({ ...f, ...patch }));
    setError(null);
  };

  const submit = async () => {
    const edited = editOf(form);
    if ('error' in edited) return setError(edited.error);
    setSaving(true);
    try {
      await onSave({ name: form.name.trim(), ...(existing && existing.name !== form.name.trim() && { previous: existing.name }), server: edited.edit });
      onClose();
    } catch (err) {
      setError(errorMessage(err));
      setSaving(false);
    }
  };

  return (
    <Dialog title={existing ? `MCP server ${existing.name}` : 'Add an MCP server'} onClose={onClose} className="mcp-server-dialog">
      <form
        className="settings"
        onSubmit={(event) => {
          event.preventDefault();
          // React hands a submit on to the forms around it, and the settings dialog's is one.
          event.stopPropagation();
          void submit();
        }}
      >
        <label className="field">
          <span>Name (its tools are offered as mcp__NAME__TOOL)</span>
          <input
            value={form.name}
            onChange={(e) => set({ name: e.target.value })}
            required
            pattern="[A-Za-z0-9_.\-]{1,64}"
            spellCheck={false}
            autoComplete="off"
          />
        </label>
        <fieldset className="mcp-transport">
          <legend>Kind</legend>
          <label className="check">
            <input type="radio" name="transport" checked={form.transport === 'stdio'} onChange={() => set({ transport: 'stdio' })} />
            <span>A program Loom starts (stdio)</span>
          </label>
          <label className="check">
            <input type="radio" name="transport" checked={form.transport === 'http'} onChange={() => set({ transport: 'http' })} />
            <span>A server at a URL (Streamable HTTP)</span>
          </label>
        </fieldset>
        {form.transport === 'stdio' ? (
          <>
            <label className="field">
              <span>Command</span>
              <input value={form.command} onChange={(e) => set({ command: e.target.value })} required spellCheck={false} autoComplete="off" />
            </label>
            <label className="field">
              <span>Arguments (one per line)</span>
              <textarea rows={3} value={form.args} onChange={(e) => set({ args: e.target.value })} spellCheck={false} />
            </label>
            <label className="field">
              <span>Environment variables (NAME=value, one per line; {SAVED_VALUE_MARK} keeps the saved value)</span>
              <textarea rows={2} value={form.env} onChange={(e) => set({ env: e.target.value })} spellCheck={false} />
            </label>
            <label className="check">
              <input type="checkbox" checked={form.sandbox} onChange={(e) => set({ sandbox: e.target.checked })} />
              <span>Run it in the sandbox (no network; writes only in the project folder)</span>
            </label>
          </>
        ) : (
          <>
            <label className="field">
              <span>URL</span>
              <input type="url" value={form.url} onChange={(e) => set({ url: e.target.value })} required spellCheck={false} autoComplete="off" />
            </label>
            <label className="field">
              <span>Headers (Name: value, one per line; {SAVED_VALUE_MARK} keeps the saved value)</span>
              <textarea rows={2} value={form.headers} onChange={(e) => set({ headers: e.target.value })} spellCheck={false} />
            </label>
          </>
        )}
        <label className="check">
          <input type="checkbox" checked={form.readOnly} onChange={(e) => set({ readOnly: e.target.checked })} />
          <span>Every tool of this server only reads (never asked about)</span>
        </label>
        <label className="field">
          <span>Tools that only read (the server's names, comma-separated)</span>
          <input
            value={form.readOnlyTools}
            onChange={(e) => set({ readOnlyTools: e.target.value })}
            disabled={form.readOnly}
            spellCheck={false}
            autoComplete="off"
          />
        </label>
        <label className="check">
          <input type="checkbox" checked={form.disabled} onChange={(e) => set({ disabled: e.target.checked })} />
          <span>Disabled (kept in the file, not started)</span>
        </label>
        {error && (
          <p className="settings-error" role="alert">
            {error}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={saving}>
            {saving ? 'Starting…' : 'Save'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
