/**
 * `file_snapshots`: each file a session's tools changed, as it was before the first change
 * (security/snapshots.ts), kept so that the Changed files list and its Revert outlive the
 * process. Rows go with their session when it is purged (ON DELETE CASCADE); a fork starts
 * with none, and neither the sync nor an export carries them: they describe this
 * machine's files.
 */
import type Database from 'better-sqlite3';
import type { Original } from '../../security/snapshots';
import { prepared } from '../statements';

interface SnapshotRow {
  path: string;
  root: string;
  folders: string;
  name: string;
  content: Buffer | null;
  mode: number;
  folders_existed: number;
}

export function hasFileSnapshot(db: Database.Database, pk: number, absPath: string): boolean {
  return prepared(db, 'SELECT 1 FROM file_snapshots WHERE session_pk = ? AND path = ?').get(pk, absPath) !== undefined;
}

/** Records the file's original once: a later snapshot of the same path keeps the first. */
export function addFileSnapshot(db: Database.Database, pk: number, absPath: string, original: Original): void {
  prepared(
    db,
    `INSERT OR IGNORE INTO file_snapshots (session_pk, path, root, folders, name, content, mode, folders_existed)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(pk, absPath, original.root, JSON.stringify(original.folders), original.name, original.content, original.mode, original.foldersThatExisted);
}

/**
 * The session's originals by path. A row whose folders or name are not plain names below
 * the project folder (an edited database) is skipped: a revert walks only names it was given.
 */
export function listFileSnapshots(db: Database.Database, pk: number): [string, Original][] {
  const rows = prepared(db, 'SELECT path, root, folders, name, content, mode, folders_existed FROM file_snapshots WHERE session_pk = ? ORDER BY path').all(
    pk,
  ) as SnapshotRow[];
  return rows.flatMap((row) => {
    const folders: unknown = JSON.parse(row.folders);
    if (!Array.isArray(folders) || !folders.every(isPlainName) || !isPlainName(row.name)) return [];
    const original: Original = { root: row.root, folders, name: row.name, content: row.content, mode: row.mode, foldersThatExisted: row.folders_existed };
    return [[row.path, original]];
  });
}

function isPlainName(part: unknown): part is string {
  return typeof part === 'string' && part !== '' && part !== '.' && part !== '..' && !/[/\\\0]/.test(part);
}
