/**
 * One `loom --import-from` run (docs/DESIGN.md#importing-from-other-agents): find the
 * source's files (before anything is opened for writing), skip the ones unchanged since the last import (size and mtime, else
 * the hash), parse the rest read-only and write what they hold. A file that cannot be
 * read or parsed is reported and skipped; the run goes on.
 */
import { createHash } from 'node:crypto';
import { constants as fsConstants, type Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { LoomError, errorMessage, isLoomError } from '../errors';
import { ImportRecords, type ImportFileRecord } from '../store/import-records';
import type { SessionStore } from '../store/session-store';
import type { ParsedFile } from './imported';
import type { ImportSourceName } from '../../shared/import-sources';
import { firstLine } from './first-line';
import { sessionFiles } from './session-files';
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
  /** Files that are not the source's sessions (their first line says so): counted, not refused. */
  notSessions: number;
  counts: WriteCounts;
  /** "file:line: reason" for every line or file refused. */
  refused: string[];
  notUnderstood: Map<string, number>;
}

/**
 * Files whose size and mtime are asked for at once: a re-import reads little else, and one
 * round trip for a batch costs what one for a file would.
 */
const STAT_BATCH = 64;

/**
 * How long one transaction writes a file's branches before it commits and lets other work
 * run: a file with thousands of branches takes seconds, and a window's requests are
 * answered meanwhile.
 */
const SLICE_MS = 50;

/**
 * Imports the files one at a time. Their sizes and mtimes, and the text of each changed
 * one, are read asynchronously, so a caller's other work (LoomEngine.importFrom: a window's
 * requests, the progress reaching it) runs meanwhile.
 */
export function runImport(store: SessionStore, request: ImportRequest): Promise<ImportSummary> {
  // One import at a time per store: a file's branches are written in several transactions,
  // and two imports of the same file interleaved would each write what the other had not yet.
  const previous = importsRunning.get(store) ?? Promise.resolve();
  const run = previous.then(
    () => importNow(store, request),
    () => importNow(store, request),
  );
  importsRunning.set(store, run);
  return run;
}

/** The last import started on each store: the next one waits for it. */
const importsRunning = new WeakMap<SessionStore, Promise<unknown>>();

async function importNow(store: SessionStore, request: ImportRequest): Promise<ImportSummary> {
  const source = importSource(request.source);
  const { location, usedDefault, files } = request;
  const records = new ImportRecords(store.db);
  const writer = new ImportWriter(store, source.name);
  const summary: ImportSummary = {
    location,
    usedDefault,
    files: files.length,
    unchangedFiles: 0,
    notSessions: 0,
    counts: zeroCounts(),
    refused: [],
    notUnderstood: new Map(),
  };
  for (let start = 0; start < files.length; start += STAT_BATCH) {
    const batch = files.slice(start, start + STAT_BATCH);
    const stats = await Promise.allSettled(batch.map((file) => fs.stat(file)));
    for (const [offset, file] of batch.entries()) {
      const read = await readChanged(file, stats[offset]);
      if (read) await importText(file, read);
      request.onProgress?.(start + offset + 1, files.length);
    }
  }
  return summary;

  /** The file's text and record, unless it is unchanged since the last import (counted) or cannot be read (refused). */
  async function readChanged(file: string, statted: PromiseSettledResult<Stats>): Promise<{ text: string; record: ImportFileRecord } | undefined> {
    try {
      if (statted.status === 'rejected') throw statted.reason;
      const { size, mtimeMs } = statted.value;
      const known = records.file(source.name, file);
      if (known && known.size === size && known.mtimeMs === mtimeMs) return void summary.unchangedFiles++;
      const text = await readRegularFile(file, source.isSessionStart);
      if (text === undefined) return void summary.notSessions++;
      const record = { size, mtimeMs, hash: createHash('sha256').update(text).digest('hex') };
      if (known?.hash !== record.hash) return { text, record };
      records.saveFile(source.name, file, record);
      summary.unchangedFiles++;
    } catch (err) {
      summary.refused.push(`${file}: could not be read (${errorMessage(err)}), skipped`);
    }
    return undefined;
  }

  async function importText(file: string, { text, record }: { text: string; record: ImportFileRecord }): Promise<void> {
    let parsed: ParsedFile;
    try {
      parsed = source.parse(text, file, new Date(record.mtimeMs).toISOString());
    } catch (err) {
      // A shape no importer foresaw: this file is reported, the others are still imported.
      summary.refused.push(`${file}: could not be read as a ${source.name} session (${errorMessage(err)}), skipped`);
      return;
    }
    summary.refused.push(...parsed.refused);
    for (const [what, n] of parsed.notUnderstood) summary.notUnderstood.set(what, (summary.notUnderstood.get(what) ?? 0) + n);
    // Refused whole (the wrong shape, every line malformed): not recorded, so the next import
    // reads it again and says so again, and imports it once it is fixed, whatever its mtime.
    if (parsed.conversations.length === 0 && parsed.refused.length > 0) return;
    const steps = writeSteps(parsed);
    for (;;) {
      const slice = store.batch(() => writeSlice(file, steps, record));
      for (const id of slice.changed) request.onChanged?.(id);
      if (slice.finished) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  function* writeSteps(parsed: ParsedFile): Generator<string | undefined, void, void> {
    for (const conversation of parsed.conversations) yield* writer.write(conversation, summary.counts);
  }

  /**
   * Writes branches for about SLICE_MS, each in a savepoint of the slice's transaction; the
   * last slice also records the file. A session another process is working in stops the
   * file (the branch is undone, the file read again next time); what was written stays.
   */
  function writeSlice(file: string, steps: Generator<string | undefined, void, void>, record: ImportFileRecord): { finished: boolean; changed: Set<string> } {
    const changed = new Set<string>();
    const until = performance.now() + SLICE_MS;
    for (;;) {
      let step: IteratorResult<string | undefined, void>;
      try {
        step = store.batch(() => steps.next());
      } catch (err) {
        if (!isLoomError(err)) throw err;
        summary.refused.push(`${file}: ${errorMessage(err)} Skipped; import again later.`);
        return { finished: true, changed };
      }
      if (step.done) {
        records.saveFile(source.name, file, record);
        return { finished: true, changed };
      }
      if (step.value !== undefined) changed.add(step.value);
      if (performance.now() >= until) return { finished: false, changed };
    }
  }
}

/**
 * The text of a file that is still a regular file when opened: the listing saw one, but it
 * may have been swapped since for a FIFO (whose read would wait for a writer forever) or a
 * device. O_NONBLOCK makes the open itself return at once; fstat on the handle judges what
 * was opened, as the `.loom` reader and the file tools do. Undefined, unread beyond its
 * first line, when `isSessionStart` says that line begins none of the source's sessions.
 */
async function readRegularFile(file: string, isSessionStart?: (line: string | undefined) => boolean): Promise<string | undefined> {
  const handle = await fs.open(file, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
  try {
    if (!(await handle.stat()).isFile()) throw new LoomError('it is not a regular file', 'import_unreadable');
    if (isSessionStart && !isSessionStart(await firstLine(handle))) return undefined;
    return await handle.readFile({ encoding: 'utf8' });
  } finally {
    await handle.close();
  }
}

/**
 * Where the import reads and the session files there, found before anything is written: a
 * missing location is refused with the store untouched.
 */
export async function importFiles({ source, path: given, home }: ImportLocation): Promise<Omit<ImportRequest, 'onProgress' | 'onChanged'>> {
  const { defaultLocation, noDefault, isSessionFile, isSubAgentFile } = importSource(source);
  let location: string;
  if (given !== undefined) location = path.resolve(given);
  else if (defaultLocation === undefined) throw new LoomError(`--import-from ${source} needs a PATH: ${noDefault ?? 'there is no default location'}.`, 'usage');
  else location = path.join(home, defaultLocation);
  const listed = await sessionFiles(location, isSessionFile);
  const files = isSubAgentFile ? [...listed.filter((file) => !isSubAgentFile(file)), ...listed.filter(isSubAgentFile)] : listed;
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
