/**
 * Long-term memory: short notes the agent keeps across sessions, either global or tied to
 * one project folder (keyed by its real path). Lives in the session database (tables
 * `memories` and `memories_fts`, created by the store's migrations).
 */
import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { LoomError } from '../errors';

export const MEMORY_SCOPES = ['project', 'global'] as const;
export type MemoryScope = (typeof MEMORY_SCOPES)[number];

export interface Memory {
  id: number;
  scope: MemoryScope;
  /** Real path of the project folder; null for global memories. */
  project: string | null;
  content: string;
  created_at: string;
}

const DEFAULT_LIMIT = 20;

/** The key a project folder is stored under: its real path, so symlinked routes agree. */
function projectKey(dir: string): string {
  const abs = path.resolve(dir);
  try {
    return fs.realpathSync(abs);
  } catch {
    return abs;
  }
}

/**
 * Turns free text into an FTS5 query that cannot be a syntax error: every word becomes a
 * quoted prefix term, joined with OR so that bm25 ranks notes sharing more words first.
 * Returns null when the text holds no searchable word.
 */
export function ftsQuery(text: string): string | null {
  const words = text.match(/[\p{L}\p{N}_]+/gu);
  if (!words) return null;
  return [...new Set(words.map((w) => w.toLowerCase()))].map((w) => `"${w}"*`).join(' OR ');
}

export class MemoryStore {
  constructor(private readonly db: Database.Database) {}

  save(scope: MemoryScope, project: string | null, content: string): Memory {
    const text = content.trim();
    if (!text) throw new LoomError('A memory needs some content.');
    if (scope === 'project' && !project) throw new LoomError('A project memory needs a project folder.');
    const key = scope === 'project' ? projectKey(project!) : null;
    const created_at = new Date().toISOString();
    const { lastInsertRowid } = this.db
      .prepare('INSERT INTO memories (scope, project, content, created_at) VALUES (?, ?, ?, ?)')
      .run(scope, key, text, created_at);
    return { id: Number(lastInsertRowid), scope, project: key, content: text, created_at };
  }

  /** Global memories and those of `project`, best match first; the newest when the query has no words. */
  search(query: string, project: string | null, limit: number = DEFAULT_LIMIT): Memory[] {
    const match = ftsQuery(query);
    if (!match) return this.list(project, limit);
    return this.db
      .prepare(
        `SELECT m.id, m.scope, m.project, m.content, m.created_at
           FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
          WHERE memories_fts MATCH ? AND (m.scope = 'global' OR m.project = ?)
          ORDER BY bm25(memories_fts), m.id DESC
          LIMIT ?`,
      )
      .all(match, project === null ? null : projectKey(project), limit) as Memory[];
  }

  /** Global memories and those of `project`, newest first. */
  list(project: string | null, limit: number = DEFAULT_LIMIT): Memory[] {
    return this.db
      .prepare(
        `SELECT id, scope, project, content, created_at FROM memories
          WHERE scope = 'global' OR project = ?
          ORDER BY id DESC LIMIT ?`,
      )
      .all(project === null ? null : projectKey(project), limit) as Memory[];
  }

  /**
   * Deletes one memory. With `project` given, only a global memory or one of that project
   * may go: an agent working in one folder cannot erase another project's notes.
   * Returns false when there was no such memory.
   */
  forget(id: number, project?: string): boolean {
    const result =
      project === undefined
        ? this.db.prepare('DELETE FROM memories WHERE id = ?').run(id)
        : this.db.prepare(`DELETE FROM memories WHERE id = ? AND (scope = 'global' OR project = ?)`).run(id, projectKey(project));
    return result.changes > 0;
  }
}
