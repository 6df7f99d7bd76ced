/**
 * "Import from…": another agent's sessions into Loom, as `loom --import-from SOURCE [PATH]`
 * imports them (docs/DESIGN.md#importing-from-other-agents). The path is the user's
 * choice; empty, the source's default location is read, databases included (nothing needs
 * exporting first). A progress bar while the files are read, then the same summary the
 * command prints; a refusal is one line and imports nothing. Imported sessions reach the
 * sidebar through their change events.
 */
import { useId, useState } from 'react';
import { IMPORT_SOURCE_LABELS, IMPORT_SOURCES, MAX_IMPORT_PATH, type ImportSourceInfo, type ImportSourceName } from '../../shared/contract';
import { useImportFrom, type ImportProgress } from '../state/import-from';
import { Dialog } from './Dialog';

export function ImportFromDialog({ onClose }: { onClose: () => void }) {
  const state = useImportFrom();
  const [source, setSource] = useState<ImportSourceName>('claude-code');
  const [path, setPath] = useState('');
  const hintId = useId();
  const info = state.sources?.find((s) => s.source === source);

  return (
    <Dialog title="Import from another agent" onClose={onClose} className="import-from">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          state.start(source, path);
        }}
      >
        <label className="field">
          <span>Source</span>
          <select value={source} onChange={(e) => setSource(e.target.value as ImportSourceName)} autoFocus>
            {IMPORT_SOURCES.map((name) => (
              <option key={name} value={name}>
                {IMPORT_SOURCE_LABELS[name]}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Folder or file (optional)</span>
          <input
            className="mono"
            value={path}
            onChange={(e) => setPath(e.target.value)}
            placeholder={info?.defaultLocation}
            maxLength={MAX_IMPORT_PATH}
            spellCheck={false}
            autoComplete="off"
            aria-describedby={hintId}
          />
        </label>
        <p className="hint" id={hintId}>
          {locationHint(info)}
        </p>
        {state.progress && <ImportProgressBar progress={state.progress} />}
        {state.error && (
          <p className="import-error" role="alert">
            {state.error}
          </p>
        )}
        {state.report && (
          <div className="import-report" role="status">
            {state.report.refused.length > 0 && (
              <ul className="import-refused mono" aria-label="Refused">
                {state.report.refused.map((line, i) => (
                  <li key={i}>{line}</li>
                ))}
              </ul>
            )}
            <p>{state.report.summary}</p>
          </div>
        )}
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            Close
          </button>
          <button type="submit" className="primary" disabled={state.running || !state.sources}>
            {state.running ? 'Importing…' : 'Import'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** What an empty field means for the source: its default location. */
function locationHint(info: ImportSourceInfo | undefined): string {
  if (!info) return '';
  return `Leave it empty to read ${info.defaultLocation}. Files and databases are only read, never changed.`;
}

function ImportProgressBar({ progress }: { progress: ImportProgress }) {
  const { done, total } = progress;
  const text = `${done} of ${total} files`;
  return (
    <div className="import-progress">
      <div
        className="import-progress-track"
        role="progressbar"
        aria-label="Import progress"
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={done}
        aria-valuetext={text}
      >
        <div className="import-progress-fill" style={{ width: `${total ? (100 * done) / total : 0}%` }} />
      </div>
      <span className="hint">{text}</span>
    </div>
  );
}
