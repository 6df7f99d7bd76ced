/**
 * The session files at an import's location (docs/DESIGN.md#importing-from-other-agents),
 * listed with asynchronous calls only: the location is whatever folder the user typed (`~`
 * and its whole tree, say), and a window's backend serves other requests while it is listed.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { LoomError, errorMessage, isLoomError } from '../errors';

/** Why a location cannot be read, in words (the error's own message repeats the path). */
const UNREADABLE: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a part of the path is a file, not a folder',
  ENAMETOOLONG: 'the path is too long',
  ELOOP: 'too many symbolic links',
};

/**
 * The file itself, or the session files anywhere under the folder, in name order; a missing
 * or unreadable location (or a folder under it) is refused.
 */
export async function sessionFiles(location: string, isSessionFile: (file: string) => boolean): Promise<string[]> {
  try {
    const stat = await statIfPresent(location);
    if (!stat) throw new LoomError(`Nothing to import: ${location} does not exist.`, 'import_missing');
    if (stat.isFile()) return [location];
    if (!stat.isDirectory()) throw new LoomError(`Cannot import from ${location}: it is neither a file nor a folder.`, 'import_unreadable');
    return (await filesBelow(location)).filter(isSessionFile).sort();
  } catch (err) {
    if (isLoomError(err)) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new LoomError(`Cannot read ${location}: ${(code && UNREADABLE[code]) ?? errorMessage(err)}.`, 'import_unreadable');
  }
}

/** The location itself is followed if it is a symbolic link, as a shell would (`~/sessions -> /data/sessions`). */
async function statIfPresent(location: string) {
  try {
    return await fs.stat(location);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * Every regular file in the folder's tree, one folder read at a time. A symbolic link below
 * the location is neither entered nor read (its entry's type is the link's own), so the walk
 * stays inside the location and ends: its depth is bounded by the longest path the system
 * accepts (deeper, the read fails with ENAMETOOLONG).
 */
async function filesBelow(folder: string): Promise<string[]> {
  const files: string[] = [];
  const folders = [folder];
  for (let next = folders.pop(); next !== undefined; next = folders.pop()) {
    for (const entry of await fs.readdir(next, { withFileTypes: true })) {
      const full = path.join(next, entry.name);
      if (entry.isDirectory()) folders.push(full);
      else if (entry.isFile()) files.push(full);
    }
  }
  return files;
}
