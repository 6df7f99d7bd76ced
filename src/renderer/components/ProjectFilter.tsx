/**
 * The sidebar's project filter (docs/DESIGN.md#the-project-folder): the project folders of
 * the sessions, each with its count; choosing one lists (and searches) only its sessions.
 * The list is fetched again when a session names a folder it does not hold yet.
 */
import { useEffect, useRef, useState } from 'react';
import type { ProjectCount } from '../../shared/contract';
import { useBridge } from '../bridge/context';

export function ProjectFilter({ value, onChange }: { value: string | null; onChange: (project: string | null) => void }) {
  const bridge = useBridge();
  const [projects, setProjects] = useState<ProjectCount[]>([]);
  const known = useRef(new Set<string>());

  useEffect(() => {
    let live = true;
    const refresh = () =>
      bridge.invoke('sessions.projects', {}).then(
        (list) => {
          if (!live) return;
          known.current = new Set(list.map((p) => p.path));
          setProjects(list);
        },
        () => {}, // the filter keeps the folders it had; the list itself says what failed
      );
    void refresh();
    const off = bridge.onEvent((event) => {
      if (
        event.type === 'session_deleted' ||
        (event.type === 'session_changed' && event.meta.project_dir !== null && !known.current.has(event.meta.project_dir))
      ) {
        void refresh();
      }
    });
    return () => {
      live = false;
      off();
    };
  }, [bridge]);

  if (projects.length === 0 && value === null) return null;
  return (
    <label className="field project-filter">
      <span>Project</span>
      <select value={value ?? ''} onChange={(e) => onChange(e.target.value || null)}>
        <option value="">All projects</option>
        {projects.map((p) => (
          <option key={p.path} value={p.path}>
            {p.path} ({p.sessions})
          </option>
        ))}
      </select>
    </label>
  );
}
