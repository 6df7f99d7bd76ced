import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { shmPath, walPath } from './file-shape';
import { openSqlite } from './sqlite';

/**
 * Runs `read` on a read-only connection to `file` that creates nothing beside it.
 *
 * Even a read-only connection makes a -wal and a -shm next to a WAL-mode database, and
 * left next to a file Loom refuses or only inspects they are litter at best (a stray -wal
 * is replayed into whatever file later takes that name). So the connection opens a hard
 * link to the file in a private folder beside it, together with links to the -wal and -shm
 * that exist: it reads the same bytes and shares the same locks, and whatever SQLite
 * creates lands in that folder, which goes afterwards. A read-only connection never
 * writes the database or its -wal. Where hard links are not supported the file is
 * opened in place. In a folder Loom cannot write (a read-only mount, another user's
 * folder) nothing can be made beside the file, and SQLite could not open a WAL-mode file
 * there: the file and its -wal are copied into a private temporary folder instead, and
 * the copy is read (nobody can be writing the original meanwhile: nobody can write there).
 */
export function withReadOnlyView<T>(file: string, read: (db: Database.Database) => T): T {
  const beside = isWritableFolder(path.dirname(file));
  const folder = fs.mkdtempSync(path.join(beside ? path.dirname(file) : os.tmpdir(), '.loom-read-'));
  try {
    const view = beside ? linkInto(folder, file) : copyInto(folder, file);
    const db = openSqlite(view ?? file, { readonly: true, fileMustExist: true });
    try {
      return read(db);
    } finally {
      db.close();
    }
  } finally {
    removeFlatFolder(folder);
  }
}

/** The folder holds only the links and what SQLite made beside them: cheaper than a recursive rmSync, which walks it file by file. */
function removeFlatFolder(folder: string): void {
  for (const name of fs.readdirSync(folder)) fs.unlinkSync(path.join(folder, name));
  fs.rmdirSync(folder);
}

/** Whether this process may create files in `folder` (false on a read-only mount, even for root). */
export function isWritableFolder(folder: string): boolean {
  try {
    fs.accessSync(folder, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** A copy of the database and its -wal in `folder` (the -shm is rebuilt from the -wal). */
function copyInto(folder: string, file: string): string {
  const view = path.join(folder, path.basename(file));
  fs.copyFileSync(file, view);
  if (fs.existsSync(walPath(file))) fs.copyFileSync(walPath(file), walPath(view));
  return view;
}

/** The linked database's path, or undefined when this file system has no hard links. */
function linkInto(folder: string, file: string): string | undefined {
  const view = path.join(folder, path.basename(file));
  try {
    fs.linkSync(file, view);
  } catch (err) {
    if (['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'EMLINK'].includes((err as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw err;
  }
  for (const companion of [walPath, shmPath]) {
    try {
      fs.linkSync(companion(file), companion(view));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return view;
}
