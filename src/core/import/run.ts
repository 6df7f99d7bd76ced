/**
 * One `loom --import-from` run (docs/DESIGN.md#importing-from-other-agents): find the
 * source's files (before anything is opened for writing), skip the ones unchanged since the last import (size and mtime, else
 * the hash), parse the rest read-only and write what they hold. A file that cannot be
 * read or parsed is reported and skipped; the run goes on.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { LoomError, errorMessage, isLoomError } from '../errors';
import { ImportRecords } from '../store/import-records';
import type { SessionStore } from '../store/session-store';
import type { ParsedFile } from './imported';
import type { ImportSourceName } from '../../shared/import-sources';
import { importSource } from './sources';
import { ImportWriter, zeroCounts, type WriteCounts } from './writer';

/** Where to import from: a file or folder, else the source's default location under `home`. */
export interface ImportLocation {
  source: ImportSourceName;
  path?: string;
  home: string;
}

/** The files found there (importFiles), and who hears how the run goes. */
export interface ImportRequest {
  source: ImportSourceName;
  location: string;
  usedDefault: boolean;
  files: string[];
  /** Called after each file: how many are done of how many. */
  onProgress?: (done: number, total: number) => void;
  /** Called with each Loom session created or changed, after it is committed. */
  onChanged?: (sessionId: string) => void;
}

export interface ImportSummary {
  location: string;
  usedDefault: boolean;
  files: number;
  unchangedFiles: number;
  counts: WriteCounts;
  /** "file:line: reason" for every line or file refused. */
  refused: string[];
  notUnderstood: Map<string, number>;
}

export function runImport(store: SessionStore, request: ImportRequest): ImportSummary {
  const steps = importSteps(store, request);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * The import one file at a time: each step imports a file (and reports progress), so a
 * caller may let other work run between files (LoomEngine.importFrom); the summary is the
 * return value.
 */
export function* importSteps(store: SessionStore, request: ImportRequest): Generator<void, ImportSummary> {
  const source = importSource(request.source);
  const { location, usedDefault, files } = request;
  const records = new ImportRecords(store.db);
  const writer = new ImportWriter(store, source.name);
  const summary: ImportSummary = {
    location,
    usedDefault,
    files: files.length,
    unchangedFiles: 0,
    counts: zeroCounts(),
    refused: [],
    notUnderstood: new Map(),
  };
  for (const [index, file] of files.entries()) {
    importFile(file);
    request.onProgress?.(index + 1, files.length);
    yield;
  }
  return summary;

  function importFile(file: string): void {
    let text: string;
    let stat: fs.Stats;
    let hash: string;
    try {
      stat = fs.statSync(file);
      const known = records.file(source.name, file);
      if (known && known.size === stat.size && known.mtimeMs === stat.mtimeMs) return void summary.unchangedFiles++;
      text = fs.readFileSync(file, 'utf8');
      hash = createHash('sha256').update(text).digest('hex');
      if (known?.hash === hash) {
        records.saveFile(source.name, file, { size: stat.size, mtimeMs: stat.mtimeMs, hash });
        return void summary.unchangedFiles++;
      }
    } catch (err) {
      summary.refused.push(`${file}: could not be read (${errorMessage(err)}), skipped`);
      return;
    }
    let parsed: ParsedFile;
    try {
      parsed = source.parse(text, file);
    } catch (err) {
      // A shape no importer foresaw: this file is reported, the others are still imported.
      summary.refused.push(`${file}: could not be read as a ${source.name} session (${errorMessage(err)}), skipped`);
      return;
    }
    summary.refused.push(...parsed.refused);
    for (const [what, n] of parsed.notUnderstood) summary.notUnderstood.set(what, (summary.notUnderstood.get(what) ?? 0) + n);
    // One transaction per file: its sessions and its record are committed together (and synced once).
    const changed = store.batch(() => {
      const ids: string[] = [];
      for (const conversation of parsed.conversations) {
        try {
          ids.push(...writer.write(conversation, summary.counts));
        } catch (err) {
          // A session another process is working in: the file is read again next time.
          if (!isLoomError(err)) throw err;
          summary.refused.push(`${file}: ${errorMessage(err)} Skipped; import again later.`);
          return ids;
        }
      }
      records.saveFile(source.name, file, { size: stat.size, mtimeMs: stat.mtimeMs, hash });
      return ids;
    });
    for (const id of changed) request.onChanged?.(id);
  }
}

/**
 * Where the import reads and the session files there, found before anything is written: a
 * missing location is refused with the store untouched.
 */
export function importFiles({ source, path: given, home }: ImportLocation): Omit<ImportRequest, 'onProgress' | 'onChanged'> {
  const { defaultLocation, noDefault, isSessionFile } = importSource(source);
  let location: string;
  if (given !== undefined) location = path.resolve(given);
  else if (defaultLocation === undefined) throw new LoomError(`--import-from ${source} needs a PATH: ${noDefault ?? 'there is no default location'}.`, 'usage');
  else location = path.join(home, defaultLocation);
  const files = sessionFiles(location, isSessionFile);
  if (files.length === 0) throw new LoomError(`Nothing to import: no ${source} session files in ${location}.`, 'import_missing');
  return { source, location, usedDefault: given === undefined, files };
}

/**
 * A path typed in a window's "Import from…" dialog: full, or under the home folder with
 * `~` (what a shell would have expanded for the command line); a relative one is refused,
 * as the window has no working folder the user would mean.
 */
export function typedLocation(typed: string, home: string): string {
  if (typed === '~') return home;
  if (typed.startsWith('~/')) return path.join(home, typed.slice(2));
  if (!path.isAbsolute(typed)) throw new LoomError(`Give the full path of the folder or file to import from (or one starting with ~/), not ${typed}.`, 'usage');
  return typed;
}

/** Why a location cannot be read, in words (the error's own message repeats the path). */
const UNREADABLE: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a part of the path is a file, not a folder',
  ENAMETOOLONG: 'the path is too long',
  ELOOP: 'too many symbolic links',
};

/** The file itself, or the session files anywhere under the folder, in name order; a missing or unreadable location is refused. */
function sessionFiles(location: string, isSessionFile: (file: string) => boolean): string[] {
  let entries: fs.Dirent[];
  try {
    const stat = fs.statSync(location, { throwIfNoEntry: false });
    if (!stat) throw new LoomError(`Nothing to import: ${location} does not exist.`, 'import_missing');
    if (stat.isFile()) return [location];
    if (!stat.isDirectory()) throw new LoomError(`Cannot import from ${location}: it is neither a file nor a folder.`, 'import_unreadable');
    entries = fs.readdirSync(location, { recursive: true, withFileTypes: true });
  } catch (err) {
    if (isLoomError(err)) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new LoomError(`Cannot read ${location}: ${(code && UNREADABLE[code]) ?? errorMessage(err)}.`, 'import_unreadable');
  }
  return entries
    .filter((entry) => entry.isFile() && isSessionFile(path.join(entry.parentPath, entry.name)))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}
