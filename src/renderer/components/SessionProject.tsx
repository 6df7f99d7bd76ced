/**
 * The session's project folder in the chat (docs/DESIGN.md#the-project-folder): the header
 * names it, as a button opening the folder dialog while it may still change (before the
 * first message); a folder that is gone, or none chosen, is one line above the message box
 * with a button to choose one. Read again after every change to the session.
 */
import { useCallback, useEffect, useState } from 'react';
import type { SessionProject } from '../../shared/contract';
import type { SessionMeta } from '../../shared/types';
import { useBridge } from '../bridge/context';
import { errorMessage } from '../lib/errors';
import { ProjectFolderDialog } from './ProjectFolderDialog';

export function useSessionProject(meta: SessionMeta | undefined): { project: SessionProject | null; choosing: boolean; choose: (open: boolean) => void } {
  const bridge = useBridge();
  const [project, setProject] = useState<SessionProject | null>(null);
  const [choosing, choose] = useState(false);
  useEffect(() => {
    if (!meta) return;
    let live = true;
    bridge.invoke('sessions.project', { id: meta.id }).then(
      (state) => live && setProject(state),
      () => {}, // a session gone meanwhile: its tab is closing
    );
    return () => {
      live = false;
    };
  }, [bridge, meta]);
  return { project, choosing, choose };
}

export function ProjectButton({ project, onChoose }: { project: SessionProject; onChoose: () => void }) {
  const shown = `Folder: ${project.dir ?? 'none'}`;
  if (!project.changeable) {
    return (
      <span className="session-project mono" title={`${project.dir ?? ''}: the project folder, fixed since the first message`}>
        {shown}
      </span>
    );
  }
  return (
    <button type="button" className="session-project mono" aria-haspopup="dialog" title="The folder this session works in; choose another" onClick={onChoose}>
      {shown}
    </button>
  );
}

/** One line when the session cannot work: its folder is gone, or none was chosen. */
export function ProjectBanner({ project, onChoose }: { project: SessionProject; onChoose: () => void }) {
  if (project.state === 'ready') return null;
  const text =
    project.state === 'missing'
      ? `This session's project folder ${project.dir} is gone (deleted or moved); no tool runs until you choose its folder again.`
      : `Choose a project folder for this session${project.recorded ? ` (it was recorded in ${project.recorded})` : ''}; no tool runs until you do.`;
  return (
    <div className="banner banner-info" role="status">
      <span className="banner-text">{text}</span>
      <button type="button" aria-haspopup="dialog" onClick={onChoose}>
        Choose folder…
      </button>
    </div>
  );
}

export function SessionProjectDialog({ meta, project, onClose }: { meta: SessionMeta; project: SessionProject; onClose: () => void }) {
  const bridge = useBridge();
  const onChoose = useCallback(
    (path: string) =>
      bridge.invoke('sessions.setProject', { id: meta.id, projectDir: path }).then(
        () => null,
        (err: unknown) => errorMessage(err),
      ),
    [bridge, meta.id],
  );
  return (
    <ProjectFolderDialog
      title="Project folder for this session"
      intro="Its tools read, write and run commands in this folder only. It can be changed until the first message."
      initial={project.dir ?? project.recorded ?? ''}
      onChoose={onChoose}
      onClose={onClose}
    />
  );
}
