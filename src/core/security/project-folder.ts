/**
 * A project folder as the user names one (a path typed, picked or given as `--project`):
 * it must exist and be a folder, and it is used by its real path, links resolved, so that
 * two names of one folder are one project and the file tools' root is what the kernel sees
 * (docs/DESIGN.md#the-project-folder).
 */
import fs from 'node:fs';
import path from 'node:path';
import { LoomError } from '../errors';

/** The folder's real path; one LoomError line (code `bad_project`) when it is missing or no folder. */
export function projectFolder(typed: string): string {
  const resolved = path.resolve(typed);
  let real: string;
  try {
    real = fs.realpathSync(resolved);
  } catch {
    throw new LoomError(`The folder ${resolved} does not exist.`, 'bad_project');
  }
  if (!fs.statSync(real).isDirectory()) throw new LoomError(`${resolved} is not a folder.`, 'bad_project');
  return real;
}

/** True while `dir` (a real path) is still that folder: not deleted, moved away, or replaced by a file or a link. */
export function folderExists(dir: string): boolean {
  try {
    return fs.realpathSync(dir) === dir && fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
