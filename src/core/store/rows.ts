import type { SessionMeta, SessionStatus } from '../../shared/types';

/** The sessions columns a SessionMeta is read from (table aliased `s`). */
export const META_COLUMNS =
  's.id, s.parent_id, s.title, s.summary, s.status, s.archived, s.created_at, s.updated_at, s.message_count, s.model, s.cwd, s.project_dir, s.pinned, s.agent';

export interface MetaRow {
  id: string;
  parent_id: string | null;
  title: string | null;
  summary: string | null;
  status: SessionStatus;
  archived: number;
  created_at: string;
  updated_at: string;
  message_count: number;
  model: string | null;
  cwd: string | null;
  project_dir: string | null;
  pinned: number;
  agent: string | null;
}

export function metaFromRow(row: MetaRow): SessionMeta {
  return {
    id: row.id,
    parent_id: row.parent_id,
    title: row.title,
    summary: row.summary,
    status: row.status,
    archived: row.archived === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
    message_count: row.message_count,
    model: row.model,
    cwd: row.cwd,
    project_dir: row.project_dir,
    pinned: row.pinned === 1,
    agent: row.agent,
  };
}
