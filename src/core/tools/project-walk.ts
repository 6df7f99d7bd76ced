/**
 * The files of a project folder that match a glob pattern, for glob_files and grep.
 * Folders are walked through held handles (security/project-fs.ts) and never entered
 * through a symbolic link, so a link to `/` or anywhere else lists and reads nothing: not
 * even a pattern naming a path through the link (`root/etc/*`) gets past it. A symlinked
 * file is resolved, and used only when it lands on a regular file inside the project.
 */
import picomatch from 'picomatch';
import { LoomError } from '../errors';
import { HeldFolder, OPEN_READ, openProjectFile, openProjectFolder, openRegularFile, type OpenedFile } from '../security/project-fs';

export interface MatchedFile {
  /** Path relative to the project folder, with '/' separators. */
  rel: string;
  /**
   * Opens the file for reading (regular files only). Call it before asking for the next
   * file: the walk closes a folder only after the opens started in it have settled.
   */
  open(): Promise<OpenedFile>;
}

export interface WalkRequest {
  projectDir: string;
  /** The project folder's real path, and the components of the folder searched below it. */
  root: string;
  parts: string[];
  /** Relative to the searched folder; no `..` (the caller checks). */
  pattern: string;
  /** Folder names not entered at any depth. */
  skipFolders: string[];
  signal: AbortSignal;
}

/** Files under the searched folder matching the pattern, in walk order (sorted per folder). */
export async function* matchingFiles(req: WalkRequest): AsyncGenerator<MatchedFile> {
  const isMatch = picomatch(req.pattern, { dot: true });
  // Start below the pattern's literal folders ("src/*.ts" starts in src), still held step by step.
  const scan = picomatch.scan(req.pattern);
  const fixed = (scan.isGlob ? scan.base : scan.base.split('/').slice(0, -1).join('/')).split('/').filter(Boolean);
  let start: HeldFolder;
  try {
    start = await openProjectFolder(req.root, [...req.parts, ...fixed]);
  } catch {
    return; // missing, not a folder, or a link: nothing to list there
  }
  try {
    for await (const found of walk(start, fixed.map((f) => `${f}/`).join(''), req)) {
      if (!isMatch(found.relToSearch)) continue;
      const projectRel = [...req.parts, found.relToSearch].join('/');
      if (found.isLink && !(await leadsToRegularFile(req.projectDir, projectRel))) continue;
      yield {
        rel: projectRel,
        // The listing typed the entry from the folder itself: that is the pre-check keeping
        // devices unopened; openRegularFile's fstat covers a swap since.
        open: () => (found.isLink ? openProjectFile(req.projectDir, projectRel, OPEN_READ) : openRegularFile(found.folder, found.name, OPEN_READ)),
      };
    }
  } finally {
    await start.close();
  }
}

/** A symlinked file is listed only when it leads to a regular file inside the project. */
async function leadsToRegularFile(projectDir: string, rel: string): Promise<boolean> {
  try {
    await (await openProjectFile(projectDir, rel, OPEN_READ)).handle.close();
    return true;
  } catch {
    return false;
  }
}

interface Walked {
  relToSearch: string;
  folder: HeldFolder;
  name: string;
  isLink: boolean;
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

async function* walk(folder: HeldFolder, prefix: string, req: WalkRequest): AsyncGenerator<Walked> {
  const entries = (await folder.list()).sort(byName);
  for (const entry of entries) {
    if (req.signal.aborted) throw new LoomError('The search was cancelled.');
    const relToSearch = prefix + entry.name;
    if (entry.isDirectory()) {
      if (req.skipFolders.includes(entry.name)) continue;
      // Opened with O_NOFOLLOW: a folder swapped for a link since the listing is not entered.
      const sub = await folder.folder(entry.name).catch(() => null);
      if (!sub) continue;
      try {
        yield* walk(sub, `${relToSearch}/`, req);
      } finally {
        await sub.close();
      }
    } else if (entry.isFile() || entry.isSymbolicLink()) {
      yield { relToSearch, folder, name: entry.name, isLink: entry.isSymbolicLink() };
    }
    // FIFOs, sockets and devices are never listed: no tool may open them.
  }
}
