/**
 * Choosing a project folder (docs/DESIGN.md#the-project-folder): a path typed (the browser
 * mode's way; the backend checks it exists and is a folder), a recent folder (a gone one is
 * marked and cannot be chosen), or, in the desktop app, the operating system's picker.
 * `onChoose` answers null once the folder is in use, else the one line saying why not.
 */
import { useEffect, useState } from 'react';
import type { RecentFolder } from '../../shared/contract';
import { isDesktop } from '../bridge';
import { useBridge } from '../bridge/context';
import { errorMessage } from '../lib/errors';
import { Dialog } from './Dialog';

interface ProjectFolderDialogProps {
  title: string;
  intro: string;
  /** What the path field starts with (the folder a session was recorded in, say). */
  initial?: string;
  onChoose: (path: string) => Promise<string | null>;
  onClose: () => void;
}

export function ProjectFolderDialog({ title, intro, initial, onChoose, onClose }: ProjectFolderDialogProps) {
  const bridge = useBridge();
  const [typed, setTyped] = useState(initial ?? '');
  const [recent, setRecent] = useState<RecentFolder[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [working, setWorking] = useState(false);

  useEffect(() => {
    let live = true;
    bridge.invoke('projects.recent', {}).then(
      (folders) => live && setRecent(folders),
      (err: unknown) => live && setError(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, [bridge]);

  const choose = async (path: string) => {
    setWorking(true);
    const refused = await onChoose(path).catch((err: unknown) => errorMessage(err));
    if (refused === null) return onClose();
    setError(refused);
    setWorking(false);
  };
  const browse = async () => {
    try {
      const { path } = await bridge.invoke('projects.pick', {});
      if (path !== null) await choose(path);
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  return (
    <Dialog title={title} onClose={onClose} className="project-folder">
      <p>{intro}</p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void choose(typed);
        }}
      >
        <label className="field">
          <span>Folder path</span>
          <input value={typed} onChange={(e) => setTyped(e.target.value)} placeholder="/home/you/project or ~/project" spellCheck={false} autoFocus />
        </label>
        {error && <p role="alert">{error}</p>}
        <div className="dialog-actions">
          {isDesktop() && (
            <button type="button" onClick={() => void browse()} disabled={working}>
              Browse…
            </button>
          )}
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={working || !typed.trim()}>
            Use this folder
          </button>
        </div>
      </form>
      {recent.length > 0 && (
        <section aria-label="Recent folders">
          <h3>Recent folders</h3>
          <ul className="recent-folders">
            {recent.map((folder) => (
              <li key={folder.path}>
                <button type="button" className="mono" disabled={working || !folder.exists} onClick={() => void choose(folder.path)}>
                  {folder.path}
                </button>
                {!folder.exists && <span className="hint"> (missing)</span>}
              </li>
            ))}
          </ul>
        </section>
      )}
    </Dialog>
  );
}
