/**
 * What `loom --import-from` remembers between runs (docs/DESIGN.md#importing-from-other-agents):
 * the files it read (size, mtime, hash), and for each Loom session it wrote, the source
 * session it came from and the keys of the source entries in its transcript.
 */
import type Database from 'better-sqlite3';
import { prepared } from '../statements';

export interface ImportFileRecord {
  size: number;
  mtimeMs: number;
  hash: string;
}

export interface ImportBranchRecord {
  sessionId: string;
  /**
   * Where the session's path starts: the first `count` keys are those of the session it was
   * forked from (its record holds them), so each key is stored once however many forks share
   * it. Absent for a session whose keys are all its own.
   */
  base?: { sessionId: string; count: number };
  /** Keys of the source entries the transcript holds beyond the base, root to tip. */
  keys: string[];
  /** The transcript length when the import last wrote to it. */
  messageCount: number;
}

/**
 * A base is stored as the first line of `keys`, behind a character no stored key has
 * (writer keys are made recordable), so rows written before bases existed (every key
 * stored) read unchanged.
 */
const BASE_MARK = '\u0001';

function encodeKeys({ base, keys }: ImportBranchRecord): string {
  return [...(base ? [`${BASE_MARK}${base.count} ${base.sessionId}`] : []), ...keys].join('\n');
}

function decodeKeys(text: string): Pick<ImportBranchRecord, 'base' | 'keys'> {
  const lines = text ? text.split('\n') : [];
  const first = lines[0];
  if (first?.startsWith(BASE_MARK) !== true) return { keys: lines };
  const space = first.indexOf(' ');
  return { base: { count: Number(first.slice(1, space)), sessionId: first.slice(space + 1) }, keys: lines.slice(1) };
}

export class ImportRecords {
  constructor(private readonly db: Database.Database) {}

  file(source: string, path: string): ImportFileRecord | undefined {
    const row = prepared(this.db, 'SELECT size, mtime_ms, hash FROM import_files WHERE source = ? AND path = ?').get(source, path) as
      { size: number; mtime_ms: number; hash: string } | undefined;
    return row && { size: row.size, mtimeMs: row.mtime_ms, hash: row.hash };
  }

  saveFile(source: string, path: string, record: ImportFileRecord): void {
    prepared(
      this.db,
      `INSERT INTO import_files (source, path, size, mtime_ms, hash) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (source, path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, hash = excluded.hash`,
    ).run(source, path, record.size, record.mtimeMs, record.hash);
  }

  /** The Loom sessions written for one source session, oldest first. */
  branches(source: string, sourceId: string): ImportBranchRecord[] {
    const rows = prepared(this.db, 'SELECT session_id, keys, message_count FROM import_branches WHERE source = ? AND source_id = ? ORDER BY rowid').all(
      source,
      sourceId,
    ) as { session_id: string; keys: string; message_count: number }[];
    return rows.map((row) => ({ sessionId: row.session_id, ...decodeKeys(row.keys), messageCount: row.message_count }));
  }

  /**
   * The source an import wrote this session from, or the session it branched from (its
   * parent line, bounded), if an import did: what another agent recorded in it is that agent's.
   */
  sourceOfLine(sessionId: string): string | undefined {
    const row = prepared(
      this.db,
      `WITH RECURSIVE line (id, depth) AS (
         SELECT ?, 0
         UNION ALL
         SELECT s.parent_id, line.depth + 1 FROM sessions s JOIN line ON s.id = line.id WHERE s.parent_id IS NOT NULL AND line.depth < 64
       )
       SELECT b.source FROM line JOIN import_branches b ON b.session_id = line.id ORDER BY line.depth LIMIT 1`,
    ).get(sessionId) as { source: string } | undefined;
    return row?.source;
  }

  saveBranch(source: string, sourceId: string, branch: ImportBranchRecord): void {
    prepared(
      this.db,
      `INSERT INTO import_branches (session_id, source, source_id, keys, message_count) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET keys = excluded.keys, message_count = excluded.message_count`,
    ).run(branch.sessionId, source, sourceId, encodeKeys(branch), branch.messageCount);
  }
}
