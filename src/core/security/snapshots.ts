/**
 * The original state of every file the agent writes or edits in a session, kept before
 * the first change, so that the user can be offered a revert when the session ends.
 * Later writes to the same file keep the first snapshot: revert means "as before the
 * session", not "as before the last write".
 *
 * A file is recorded as its components below the project folder's real path. Whenever it
 * is looked at again (what changed, the revert) its path is walked again from the project
 * folder through project-fs.ts, each folder held open and the next name opened in it with
 * O_NOFOLLOW: no link is ever followed, inside the project or out. The revert rule, per file:
 *
 * - A folder on the way that is now a symbolic link or not a folder: the file is left
 *   alone and reported. Nothing is written or removed through a link.
 * - The file existed before the session: missing folders on the way are made again and
 *   the name gets its old content and mode back, but only if it is missing or a regular
 *   file now (opened O_NOFOLLOW | O_NONBLOCK, judged by fstat). A link, folder, FIFO,
 *   socket or device there is left alone and reported.
 * - The session created it: it is removed only if it is a regular file now, and unlink
 *   removes that name in the held folder, never what a link points at. Anything else there
 *   is not what the session wrote, so it is left alone and reported. The folders the
 *   write created are then removed bottom up while they are empty (rmdir follows no link).
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { errorMessage, LoomError } from '../errors';
import { HeldFolder, isRegularOrMissing, kindOf, OPEN_CREATE_OR_TRUNCATE, OPEN_READ, openProjectFolder, openRegularFile, partsOf } from './project-fs';

export interface Original {
  /** The project folder's real path, and the file's folders and name below it. */
  root: string;
  folders: string[];
  name: string;
  /** null: the file did not exist. */
  content: Buffer | null;
  mode: number;
  /** For a file that did not exist: how many of its folders did; the write made the rest. */
  foldersThatExisted: number;
}

/** A file that was not put back, and why. */
export interface LeftAlone {
  path: string;
  reason: string;
}

export interface RevertReport {
  /** Absolute paths put back as they were, sorted. */
  reverted: string[];
  leftAlone: LeftAlone[];
}

type FileState =
  | { kind: 'file'; content: Buffer; mode: number }
  | { kind: 'missing'; foldersThatExisted: number }
  /** A link, folder, FIFO… at the name or on the way: nothing a snapshot can hold. */
  | { kind: 'other' };

const errCode = (err: unknown) => (err as NodeJS.ErrnoException)?.code;

/** Where the originals are kept, by absolute path: a Map, or the store's (store/repositories/file-snapshots.ts), which a restart keeps. */
export interface OriginalsKeeper {
  has(absPath: string): boolean;
  set(absPath: string, original: Original): void;
  entries(): Iterable<[string, Original]>;
}

export class FileSnapshots {
  constructor(private readonly originals: OriginalsKeeper = new Map<string, Original>()) {}

  /** Records `absPath` (resolved inside `projectDir`) as it is now, unless it was recorded already. */
  async snapshot(projectDir: string, absPath: string): Promise<void> {
    if (this.originals.has(absPath)) return;
    const root = await fsp.realpath(projectDir);
    const parts = partsOf(root, absPath);
    const [top] = parts;
    const name = parts.at(-1);
    if (top === undefined || name === undefined || top === '..' || path.isAbsolute(top)) return;
    const folders = parts.slice(0, -1);
    const now = await stateOf(root, folders, name);
    if (now.kind === 'other') return; // the tool refuses it; nothing to restore
    this.originals.set(absPath, {
      root,
      folders,
      name,
      content: now.kind === 'file' ? now.content : null,
      mode: now.kind === 'file' ? now.mode : 0o644,
      foldersThatExisted: now.kind === 'missing' ? now.foldersThatExisted : folders.length,
    });
  }

  /** Files whose state differs now from their snapshot (absolute paths, sorted). */
  async changedFiles(): Promise<string[]> {
    return (await this.changed()).map(([abs]) => abs);
  }

  /** Puts every changed file back by the rule above; what could not be is reported, not forced. */
  async revert(): Promise<RevertReport> {
    const report: RevertReport = { reverted: [], leftAlone: [] };
    for (const [abs, original] of await this.changed()) {
      try {
        await (original.content === null ? removeCreated(original) : restore(original, original.content));
        report.reverted.push(abs);
      } catch (err) {
        report.leftAlone.push({ path: abs, reason: errorMessage(err) });
      }
    }
    return report;
  }

  /** The originals whose file differs now, by path. */
  private async changed(): Promise<[string, Original][]> {
    const changed: [string, Original][] = [];
    for (const [abs, original] of [...this.originals.entries()]) {
      if (!sameAsNow(original, await stateOf(original.root, original.folders, original.name))) changed.push([abs, original]);
    }
    return changed.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
}

function sameAsNow(original: Original, now: FileState): boolean {
  if (original.content === null) return now.kind === 'missing';
  return now.kind === 'file' && now.content.equals(original.content);
}

/** What is at `folders`/`name` now, walked from the project folder without following links. */
async function stateOf(root: string, folders: string[], name: string): Promise<FileState> {
  let folder: HeldFolder;
  try {
    folder = await HeldFolder.openRoot(root);
  } catch {
    return { kind: 'other' };
  }
  try {
    for (const [i, step] of folders.entries()) {
      let next: HeldFolder;
      try {
        next = await folder.folder(step);
      } catch (err) {
        return errCode(err) === 'ENOENT' ? { kind: 'missing', foldersThatExisted: i } : { kind: 'other' };
      }
      await folder.close();
      folder = next;
    }
    return await fileState(folder, name, folders.length);
  } finally {
    await folder.close();
  }
}

async function fileState(folder: HeldFolder, name: string, folders: number): Promise<FileState> {
  try {
    if (!(await isRegularOrMissing(folder, name))) return { kind: 'missing', foldersThatExisted: folders };
    const { handle, stat } = await openRegularFile(folder, name, OPEN_READ);
    try {
      return { kind: 'file', content: await handle.readFile(), mode: stat.mode & 0o7777 };
    } finally {
      await handle.close();
    }
  } catch {
    return { kind: 'other' };
  }
}

/** Writes the old content back in place, into a regular file only (checked before and after the open). */
async function restore(original: Original, content: Buffer): Promise<void> {
  const { root, folders, name } = original;
  const folder = await openProjectFolder(root, folders, { create: true });
  try {
    await isRegularOrMissing(folder, name);
    const { handle } = await openRegularFile(folder, name, OPEN_CREATE_OR_TRUNCATE);
    try {
      await handle.writeFile(content);
      await handle.chmod(original.mode);
    } finally {
      await handle.close();
    }
  } finally {
    await folder.close();
  }
}

/** Removes the file the session created, then the folders created for it while empty. */
async function removeCreated(original: Original): Promise<void> {
  const { root, folders, name } = original;
  // Every folder on the way stays held: each created one is removed through its parent.
  let parent = await HeldFolder.openRoot(root);
  const chain = [parent];
  const steps: { holder: HeldFolder; folder: string }[] = [];
  try {
    for (const folder of folders) {
      steps.push({ holder: parent, folder });
      parent = await parent.folder(folder);
      chain.push(parent);
    }
    const stat = await parent.at(name, (at) => fsp.lstat(at)).catch((err: unknown) => (errCode(err) === 'ENOENT' ? null : Promise.reject(err)));
    if (stat && !stat.isFile()) {
      throw new LoomError(`${[...folders, name].join('/')} is now ${kindOf(stat)}, not the file this session wrote; it was left alone.`);
    }
    if (stat) await parent.at(name, (at) => fsp.unlink(at));
    for (const { holder, folder } of steps.slice(original.foldersThatExisted).reverse()) {
      const removed = await holder
        .at(folder, (at) => fsp.rmdir(at))
        .then(
          () => true,
          () => false,
        );
      if (!removed) break; // not empty: keep it and all above
    }
  } finally {
    await Promise.all(chain.map((folder) => folder.close()));
  }
}
