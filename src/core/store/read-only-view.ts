import fs from 'node:fs';
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
 * opened in place.
 */
export function withReadOnlyView<T>(file: string, nativeBinding: string | undefined, read: (db: Database.Database) => T): T {
  const folder = fs.mkdtempSync(path.join(path.dirname(file), '.loom-read-'));
  try {
    const view = linkInto(folder, file);
    const db = openSqlite(view ?? file, { readonly: true, fileMustExist: true, nativeBinding });
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
