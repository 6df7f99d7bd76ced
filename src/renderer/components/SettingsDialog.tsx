/**
 * The model server, model, API key, context budget, permission mode, theme, the
 * environment variables passed to tools, the sync hub, and the MCP servers (shown; set in mcp.json). The
 * key is write-only here: the dialog only learns whether one is stored. The model is picked
 * from the server's list, and Test connection says what is wrong with the server, key and
 * model as filled in (docs/DESIGN.md#model-picker), before anything is saved.
 */
import { useState } from 'react';
import type { ConnectionReport, SyncStatus } from '../../shared/contract';
import { BASE_TOOL_ENV, MAX_TRASH_DAYS, PERMISSION_MODES, THEMES, type Settings } from '../../shared/settings';
import { useBridge } from '../bridge/context';
import { useModelList, type ModelServerProbe } from '../state/model-list';
import { Dialog } from './Dialog';
import { ModelPicker } from './ModelPicker';
import { McpServersSection } from './McpServersSection';
import { SyncHubSection } from './SyncHubSection';
import { errorMessage } from '../lib/errors';

type Patch = Partial<Omit<Settings, 'hasApiKey' | 'openTabs' | 'activeTab'>> & { apiKey?: string };

/** The fields a connection test is about. */
const CONNECTION_FIELDS = ['baseUrl', 'apiKey', 'removeKey', 'model'] as const;

const MODE_LABELS: Record<(typeof PERMISSION_MODES)[number], string> = {
  default: 'Ask before edits and commands',
  acceptEdits: 'Accept file edits, ask before commands',
  dangerouslySkipPermissions: 'Never ask (dangerous)',
};

export function SettingsDialog({
  settings,
  syncStatus,
  onClose,
  onSave,
}: {
  settings: Settings;
  syncStatus: SyncStatus | null;
  onClose: () => void;
  /** Saves; a refusal is thrown and shown inside the dialog, which stays open. */
  onSave: (patch: Patch) => Promise<void>;
}) {
  const [form, setForm] = useState({
    baseUrl: settings.baseUrl,
    model: settings.model,
    apiKey: '',
    removeKey: false,
    maxContextTokens: String(settings.maxContextTokens),
    modelWindow: settings.modelWindow === null ? '' : String(settings.modelWindow),
    mode: settings.mode,
    theme: settings.theme,
    passEnv: settings.passEnv.join(' '),
    hubUrl: settings.hubUrl,
    trashDays: String(settings.trashDays),
  });
  const bridge = useBridge();
  const { list, refresh, show } = useModelList();
  const [test, setTest] = useState<{ running: true } | { running: false; report: ConnectionReport } | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);
  const set = (patch: Partial<typeof form>) => {
    setForm((f) => ({ ...f, ...patch }));
    setSaveError(null);
    // A test's answer is about what was filled in then: editing the server, key or model makes it stale.
    if (CONNECTION_FIELDS.some((field) => field in patch)) setTest((t) => (t?.running ? t : null));
  };
  const testFailed = test !== null && !test.running && !test.report.ok;

  /** The server as filled in: its URL when changed, the key typed for it (or none when removed). */
  const probe = (): ModelServerProbe => {
    const server: ModelServerProbe = {};
    if (form.baseUrl.trim() !== settings.baseUrl) server.baseUrl = form.baseUrl.trim();
    if (form.removeKey) server.apiKey = '';
    else if (form.apiKey) server.apiKey = form.apiKey;
    return server;
  };
  const testConnection = async () => {
    setTest({ running: true });
    try {
      const report = await bridge.invoke('models.test', { ...probe(), model: form.model.trim() });
      if (report.models.length) show(report.models);
      setTest({ running: false, report });
    } catch (err) {
      setTest({ running: false, report: { ok: false, message: errorMessage(err), models: [] } });
    }
  };
  const serverEdited = () => refresh(probe());

  const submit = async () => {
    const patch: Patch = {
      baseUrl: form.baseUrl.trim(),
      model: form.model.trim(),
      maxContextTokens: Number(form.maxContextTokens),
      // Blank: Loom learns the window from the server, or from its first refusal.
      modelWindow: form.modelWindow.trim() ? Number(form.modelWindow) : null,
      mode: form.mode,
      theme: form.theme,
      passEnv: form.passEnv.split(/[\s,]+/).filter(Boolean),
      trashDays: Number(form.trashDays),
    };
    if (form.removeKey) patch.apiKey = '';
    else if (form.apiKey) patch.apiKey = form.apiKey;
    // Sent only when edited: the shown URL's *** stands for the saved password.
    if (form.hubUrl.trim() !== settings.hubUrl) patch.hubUrl = form.hubUrl.trim();
    try {
      await onSave(patch);
      onClose();
    } catch (err) {
      setSaveError(errorMessage(err));
    }
  };

  return (
    <Dialog title="Settings" onClose={onClose}>
      <form
        className="settings"
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <label className="field">
          <span>Model server (OpenAI-compatible base URL)</span>
          <input type="url" value={form.baseUrl} onChange={(e) => set({ baseUrl: e.target.value })} onBlur={serverEdited} required />
        </label>
        {settings.hasApiKey && form.baseUrl.trim() !== settings.baseUrl && (
          <p className="hint">Changing the server URL forgets the saved API key; enter it again for the new server.</p>
        )}
        <label className="field">
          <span>API key {settings.hasApiKey ? '(one is stored; type to replace it)' : '(none stored)'}</span>
          <input
            type="password"
            autoComplete="off"
            value={form.apiKey}
            onChange={(e) => set({ apiKey: e.target.value })}
            onBlur={serverEdited}
            disabled={form.removeKey}
          />
        </label>
        {settings.hasApiKey && (
          <label className="check">
            <input type="checkbox" checked={form.removeKey} onChange={(e) => set({ removeKey: e.target.checked })} />
            <span>Remove the stored API key</span>
          </label>
        )}
        <ModelPicker
          label="Model (the default for new sessions)"
          value={form.model}
          onChange={(model) => set({ model })}
          list={list}
          quietFailure={testFailed}
        />
        <div className="connection-test">
          <button type="button" onClick={() => void testConnection()} disabled={test?.running === true || !form.model.trim()}>
            {test?.running ? 'Testing…' : 'Test connection'}
          </button>
          <p className={`connection-result${testFailed ? ' failed' : ''}`} role="status">
            {test && !test.running ? test.report.message : ''}
          </p>
        </div>
        <label className="field">
          <span>Context budget (tokens)</span>
          <input type="number" min={1000} step={1} value={form.maxContextTokens} onChange={(e) => set({ maxContextTokens: e.target.value })} required />
        </label>
        <label className="field">
          <span>Model window (tokens; blank: learnt from the server)</span>
          <input type="number" min={1000} step={1} value={form.modelWindow} onChange={(e) => set({ modelWindow: e.target.value })} />
        </label>
        <label className="field">
          <span>Keep deleted sessions in the Trash (days)</span>
          <input type="number" min={1} max={MAX_TRASH_DAYS} step={1} value={form.trashDays} onChange={(e) => set({ trashDays: e.target.value })} required />
        </label>
        <label className="field">
          <span>Permissions</span>
          <select value={form.mode} onChange={(e) => set({ mode: e.target.value as Settings['mode'] })}>
            {PERMISSION_MODES.map((mode) => (
              <option key={mode} value={mode}>
                {MODE_LABELS[mode]}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Theme</span>
          <select value={form.theme} onChange={(e) => set({ theme: e.target.value as Settings['theme'] })}>
            {THEMES.map((theme) => (
              <option key={theme} value={theme}>
                {theme === 'system' ? 'Follow the system' : theme === 'light' ? 'Light' : 'Dark'}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Pass these environment variables to tools (names, e.g. GITHUB_TOKEN NPM_TOKEN)</span>
          <input value={form.passEnv} onChange={(e) => set({ passEnv: e.target.value })} spellCheck={false} autoComplete="off" />
        </label>
        <p className="hint">Tools always get {BASE_TOOL_ENV.join(', ')}; nothing else of Loom's environment unless named here.</p>
        <SyncHubSection hubUrl={form.hubUrl} onHubUrl={(hubUrl) => set({ hubUrl })} status={settings.hubUrl === form.hubUrl.trim() ? syncStatus : null} />
        <McpServersSection />
        {saveError && (
          <p className="settings-error" role="alert">
            {saveError}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary">
            Save
          </button>
        </div>
      </form>
    </Dialog>
  );
}
