/**
 * The "Import from…" dialog's data (docs/DESIGN.md#importing-from-other-agents): the
 * sources with their default locations, asked for once, and one import at a time with its
 * progress (the engine's `import_progress` events naming this import) and its outcome: the
 * summary `loom --import-from` prints, or the one line saying why nothing was imported.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ImportReport, ImportSourceInfo, ImportSourceName } from '../../shared/contract';
import { useBridge } from '../bridge/context';
import { errorMessage } from '../lib/errors';

export interface ImportProgress {
  done: number;
  total: number;
}

export interface ImportFromState {
  sources: ImportSourceInfo[] | null;
  running: boolean;
  /** Files read so far of the last import's; null before its first file. */
  progress: ImportProgress | null;
  report: ImportReport | null;
  error: string | null;
  start: (source: ImportSourceName, path: string) => void;
}

export function useImportFrom(): ImportFromState {
  const bridge = useBridge();
  const [sources, setSources] = useState<ImportSourceInfo[] | null>(null);
  const [running, setRunning] = useState(false);
  const [progress, setProgress] = useState<ImportProgress | null>(null);
  const [report, setReport] = useState<ImportReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** The import whose progress is shown: events of other windows' imports are not. */
  const current = useRef<string | null>(null);

  useEffect(() => {
    let live = true;
    const off = bridge.onEvent((event) => {
      if (event.type === 'import_progress' && event.importId === current.current) setProgress({ done: event.done, total: event.total });
    });
    bridge.invoke('sessions.importSources', {}).then(
      (list) => live && setSources(list),
      (err: unknown) => live && setError(errorMessage(err)),
    );
    return () => {
      live = false;
      off();
    };
  }, [bridge]);

  const start = useCallback(
    (source: ImportSourceName, path: string) => {
      const importId = crypto.randomUUID();
      current.current = importId;
      setRunning(true);
      setProgress(null);
      setReport(null);
      setError(null);
      const typed = path.trim();
      bridge
        .invoke('sessions.importFrom', { importId, source, ...(typed ? { path: typed } : {}) })
        .then(setReport, (err: unknown) => setError(errorMessage(err)))
        .finally(() => setRunning(false));
    },
    [bridge],
  );

  return { sources, running, progress, report, error, start };
}
