/**
 * Opening the project's files and folders so that nothing leads out of the project
 * between a check and the use.
 *
 * A path is opened one component at a time from the project folder: each folder is held
 * open and the next name is opened in it with O_NOFOLLOW, so a component that is (or has
 * just become) a symbolic link is refused, never followed. On Linux the next name is
 * resolved from the open folder itself (/proc/self/fd/N/name: Node's stand-in for
 * openat), so renaming a folder or swapping its path for a link after it was opened
 * changes nothing. Elsewhere the held folder's path is used, which still refuses links
 * but leaves the swap of a folder between two steps open.
 *
 * Files are opened with O_NOFOLLOW | O_NONBLOCK and judged by fstat on the open handle:
 * a FIFO, socket or device is refused without ever blocking, and what was checked is the
 * very file that is then read or written.
 *
 * Everything here is fs/promises: no synchronous I/O on an agent-chosen path runs on the
 * caller's event loop.
 */
import fs from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { LoomError } from '../errors';
import { resolveInsideProject } from './policy';

const C = fs.constants;
// Undefined on Windows, which has no such flags: 0 leaves the flags unchanged there.
const O_NOFOLLOW = C.O_NOFOLLOW ?? 0;
const O_NONBLOCK = C.O_NONBLOCK ?? 0;
const O_DIRECTORY = C.O_DIRECTORY ?? 0;

/** Flags for openRegularFile and openProjectFile. */
export const OPEN_READ = C.O_RDONLY;
export const OPEN_READ_WRITE = C.O_RDWR;
export const OPEN_CREATE_OR_TRUNCATE = C.O_WRONLY | C.O_CREAT | C.O_TRUNC;

/** Where Linux names the process's open files; a folder's entry there resolves from its handle. */
const FD_DIR = '/proc/self/fd';
let anchoring: Promise<boolean> | undefined;
const canAnchor = () =>
  (anchoring ??= fsp.access(FD_DIR).then(
    () => true,
    () => false,
  ));

const errCode = (err: unknown) => (err as NodeJS.ErrnoException)?.code;

/** A folder of the project, held open; names under it are opened in it, never through a link. */
export class HeldFolder {
  /** Operations on paths through this folder's descriptor that have not settled yet. */
  private readonly inFlight = new Set<Promise<unknown>>();

  private constructor(
    private readonly handle: FileHandle,
    private readonly anchored: boolean,
    /** Real path when it was opened: for messages, and the way in where there is no anchoring. */
    readonly path: string,
    /** Path relative to the project folder ('' for the project folder itself). */
    readonly rel: string,
  ) {}

  /** The project folder itself (a real path, as fsp.realpath gives it). */
  static async openRoot(root: string): Promise<HeldFolder> {
    const handle = await fsp.open(root, C.O_RDONLY | O_DIRECTORY);
    return new HeldFolder(handle, await canAnchor(), root, '');
  }

  /**
   * Runs `op` on the path of `name` in this folder: a path the kernel resolves from the
   * held handle (where it can). Only single names: `..` or a separator would walk off it.
   */
  at<T>(name: string, op: (at: string) => Promise<T>): Promise<T> {
    if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes(path.sep) || name.includes('\0')) {
      return Promise.reject(new LoomError(`"${name}" is not a single file name.`));
    }
    return this.track(op(`${this.self()}/${name}`));
  }

  relOf(name: string): string {
    return this.rel ? `${this.rel}/${name}` : name;
  }

  /** The sub-folder `name`, opened without following a link; created first when `create` and missing. */
  async folder(name: string, create = false): Promise<HeldFolder> {
    try {
      return await this.openSub(name);
    } catch (err) {
      if (!create || errCode(err) !== 'ENOENT') throw await this.explainSub(err, name);
    }
    await this.at(name, (at) => fsp.mkdir(at)).catch((err) => {
      if (errCode(err) !== 'EEXIST') throw explainFsError(err, this.relOf(name));
    });
    // Opened again with O_NOFOLLOW: a link put there in the meantime is refused too.
    return this.openSub(name).catch(async (err) => Promise.reject(await this.explainSub(err, name)));
  }

  /** Entries of this folder; their types come from the folder itself, links are not followed. */
  list(): Promise<fs.Dirent[]> {
    return this.track(fsp.readdir(this.self(), { withFileTypes: true }));
  }

  /**
   * Waits for the operations still resolving a path through this folder first: once the
   * descriptor is closed its number can be reused, and such a path would name another file.
   */
  async close(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
    await this.handle.close();
  }

  private self(): string {
    return this.anchored ? `${FD_DIR}/${this.handle.fd}` : this.path;
  }

  private track<T>(running: Promise<T>): Promise<T> {
    this.inFlight.add(running);
    const settled = () => this.inFlight.delete(running);
    running.then(settled, settled);
    return running;
  }

  private async openSub(name: string): Promise<HeldFolder> {
    const handle = await this.at(name, (at) => fsp.open(at, C.O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK));
    return new HeldFolder(handle, this.anchored, path.join(this.path, name), this.relOf(name));
  }

  /** O_NOFOLLOW | O_DIRECTORY says ENOTDIR for a link as for a file: tell which it was. */
  private async explainSub(err: unknown, name: string): Promise<unknown> {
    const rel = this.relOf(name);
    // A missing folder is explained by the caller, who knows the whole path asked for.
    if (errCode(err) === 'ENOENT') return err;
    if (errCode(err) !== 'ENOTDIR' && errCode(err) !== 'ELOOP') return explainFsError(err, rel);
    const stat = await this.at(name, (at) => fsp.lstat(at)).catch(() => null);
    if (stat?.isSymbolicLink()) return linkRefusal(rel);
    return new LoomError(`${rel} is not a folder.`);
  }
}

function linkRefusal(rel: string): LoomError {
  return new LoomError(`${rel} is a symbolic link here (it may have changed while in use); it was not followed.`);
}

/**
 * Opens the folder `parts` below the project folder `root` (a real path), one held
 * component at a time. The caller owns (and closes) the folder returned.
 */
export async function openProjectFolder(root: string, parts: readonly string[], opts: { create?: boolean } = {}): Promise<HeldFolder> {
  let folder = await HeldFolder.openRoot(root);
  for (const name of parts) {
    let next: HeldFolder;
    try {
      next = await folder.folder(name, opts.create);
    } finally {
      await folder.close();
    }
    folder = next;
  }
  return folder;
}

/** The components of `abs` (a real path inside `root`), for openProjectFolder. */
export function partsOf(root: string, abs: string): string[] {
  const rel = path.relative(root, abs);
  return rel === '' ? [] : rel.split(path.sep);
}

export function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isSymbolicLink()) return 'a symbolic link';
  if (stat.isFIFO()) return 'a named pipe (FIFO)';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

function refuseUnlessRegular(stat: fs.Stats, shown: string): void {
  if (stat.isFile()) return;
  if (stat.isDirectory()) throw new LoomError(`${shown} is a directory, not a file.`);
  if (stat.isSymbolicLink()) throw linkRefusal(shown);
  throw new LoomError(`${shown} is ${kindOf(stat)}, not a regular file; file tools read and write regular files only.`);
}

export interface OpenedFile {
  handle: FileHandle;
  /** fstat of the open handle: always a regular file. */
  stat: fs.Stats;
}

/**
 * lstat of `name` in `folder`, before opening it, so that a device is never even opened:
 * false when it is missing, a LoomError when it is anything but a regular file.
 */
export async function isRegularOrMissing(folder: HeldFolder, name: string): Promise<boolean> {
  const stat = await folder
    .at(name, (at) => fsp.lstat(at))
    .catch((err) => {
      if (errCode(err) === 'ENOENT') return null;
      throw explainFsError(err, folder.relOf(name));
    });
  if (stat) refuseUnlessRegular(stat, folder.relOf(name));
  return stat !== null;
}

/**
 * Opens `name` in `folder` with O_NOFOLLOW | O_NONBLOCK and requires fstat of the handle to
 * say "regular file": what counts is the file actually opened, whatever the name was a
 * moment before, and a FIFO opened by a swap never blocks. The pre-check that keeps a device
 * from being opened at all is the caller's: isRegularOrMissing, or the folder's own listing.
 */
export async function openRegularFile(folder: HeldFolder, name: string, flags: number): Promise<OpenedFile> {
  const shown = folder.relOf(name);
  let handle: FileHandle;
  try {
    handle = await folder.at(name, (at) => fsp.open(at, flags | O_NOFOLLOW | O_NONBLOCK, 0o666));
  } catch (err) {
    throw explainFsError(err, shown);
  }
  try {
    const stat = await handle.stat();
    refuseUnlessRegular(stat, shown);
    return { handle, stat };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

export interface ProjectFile extends OpenedFile {
  /** The real absolute path. */
  abs: string;
  /** The path relative to the project folder, as the model sees it. */
  shown: string;
  /** Whether the file was there before this open (false: O_CREAT made it). */
  existed: boolean;
}

/**
 * Resolves `p` inside the project (resolveInsideProject: `..` and in-project links
 * resolved, anything outside refused), then opens the result component by component,
 * as a regular file only. `createFolders` makes missing folders on the way (write_file).
 */
export async function openProjectFile(projectDir: string, p: string, flags: number, opts: { createFolders?: boolean } = {}): Promise<ProjectFile> {
  const abs = await resolveInsideProject(projectDir, p);
  const root = await fsp.realpath(projectDir);
  const parts = partsOf(root, abs);
  const name = parts.at(-1);
  if (name === undefined) throw new LoomError('. is the project folder, not a file.');
  const shown = parts.join('/');
  const folder = await openProjectFolder(root, parts.slice(0, -1), { create: opts.createFolders }).catch((err) => {
    throw explainFsError(err, shown);
  });
  try {
    const existed = await isRegularOrMissing(folder, name);
    return { ...(await openRegularFile(folder, name, flags)), abs, shown, existed };
  } finally {
    await folder.close();
  }
}

/** Where `p` lands inside the project, and whether a folder is there now (lstat: a link is not one). */
export async function inspectProjectPath(projectDir: string, p: string): Promise<{ root: string; parts: string[]; shown: string; isFolder: boolean }> {
  const root = await fsp.realpath(projectDir);
  const parts = partsOf(root, await resolveInsideProject(projectDir, p));
  const shown = parts.join('/') || '.';
  const name = parts.at(-1);
  if (name === undefined) return { root, parts, shown, isFolder: true };
  const parent = await openProjectFolder(root, parts.slice(0, -1)).catch((err) => {
    throw explainFsError(err, shown);
  });
  try {
    const stat = await parent.at(name, (at) => fsp.lstat(at));
    return { root, parts, shown, isFolder: stat.isDirectory() };
  } catch (err) {
    throw explainFsError(err, shown);
  } finally {
    await parent.close();
  }
}

/** The one sentence for an errno a model (or the user) can act on; `shown` is the path it concerns. */
export function explainFsError(err: unknown, shown: string): Error {
  if (err instanceof LoomError) return err;
  const code = errCode(err);
  if (code === 'ENOENT') return new LoomError(`File not found: ${shown}.`, 'not_found');
  if (code === 'EACCES' || code === 'EPERM') return new LoomError(`Permission denied: ${shown}.`);
  if (code === 'EISDIR') return new LoomError(`${shown} is a directory, not a file.`);
  if (code === 'ENOTDIR') return new LoomError(`A part of ${shown} is a file, not a directory.`);
  if (code === 'ELOOP') return linkRefusal(shown);
  // O_NONBLOCK write-open of a FIFO nobody reads, or a device with nothing behind it.
  if (code === 'ENXIO') return new LoomError(`${shown} is not a regular file; file tools read and write regular files only.`);
  return new LoomError(`Cannot access ${shown}: ${(err as Error).message}`);
}
