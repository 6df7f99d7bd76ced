/**
 * One `loom --import-from` run (docs/DESIGN.md#importing-from-other-agents): find the
 * source's files (before anything is opened for writing), what each holds (units: the file,
 * or the sessions of a database), skip the units unchanged since the last import (their
 * stamp, else the hash), parse the rest read-only and write what they hold. A unit that
 * cannot be read or parsed is reported and skipped; the run goes on.
 */
import path from 'node:path';
import { LoomError, errorMessage, isLoomError } from '../errors';
import { ImportRecords, type ImportFileRecord } from '../store/repositories/import-records';
import type { SessionStore } from '../store/session-store';
import type { ParsedFile } from './imported';
import type { ImportSourceName } from '../../shared/import-sources';
import { sessionFiles } from './session-files';
import { importSource } from './sources';
import { fileUnit, singleFile, type ImportStamp, type ImportUnit, type LoadedUnit, type UnitsFound } from './units';
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
  /** Units read from files (a session file, a session of a storage tree). */
  files: number;
  /** Databases read, and the sessions found in them (each one a unit). */
  databases: number;
  databaseSessions: number;
  unchangedFiles: number;
  /** Files that are not the source's sessions (their first line says so): counted, neither refused nor remembered. */
  notSessions: number;
  counts: WriteCounts;
  /** "file:line: reason" for every line, file or database row refused. */
  refused: string[];
  notUnderstood: Map<string, number>;
}

/**
 * Units whose stamps (a file's size and mtime) are asked for at once: a re-import reads
 * little else, and one round trip for a batch costs what one for a file would.
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
    files: 0,
    databases: 0,
    databaseSessions: 0,
    unchangedFiles: 0,
    notSessions: 0,
    counts: zeroCounts(),
    refused: [],
    notUnderstood: new Map(),
  };
  const found: UnitsFound[] = [];
  try {
    for (const file of files) {
      const units = await unitsIn(file);
      if (units) found.push(units);
    }
    const units = found.flatMap((each) => each.units);
    for (let start = 0; start < units.length; start += STAT_BATCH) {
      const batch = units.slice(start, start + STAT_BATCH);
      const stamps = await Promise.allSettled(batch.map((unit) => unit.stamp()));
      for (const [offset, unit] of batch.entries()) {
        const stamp = stamps[offset];
        if (stamp === undefined) break; // allSettled gives every unit its result
        const read = await readChanged(unit, stamp);
        if (read) await importUnit(unit.key, read);
        request.onProgress?.(start + offset + 1, units.length);
      }
    }
  } finally {
    await Promise.all(found.map((each) => each.close()));
  }
  return summary;

  /** What the file holds; undefined (refused) when it cannot be read, as a database that is locked, corrupt or not the source's. */
  async function unitsIn(file: string): Promise<UnitsFound | undefined> {
    try {
      const units = source.unitsIn ? await source.unitsIn(file) : singleFile(fileUnit(file, source.parse, source.isSessionStart));
      if (units.database) {
        summary.databases++;
        summary.databaseSessions += units.units.length;
      } else summary.files += units.units.length;
      return units;
    } catch (err) {
      summary.refused.push(isLoomError(err) ? errorMessage(err) : `${file}: could not be read (${errorMessage(err)}), skipped`);
      return undefined;
    }
  }

  /** The unit's contents and record, unless it is unchanged since the last import (counted) or cannot be read (refused). */
  async function readChanged(
    unit: ImportUnit,
    stamped: PromiseSettledResult<ImportStamp>,
  ): Promise<{ loaded: LoadedUnit; record: ImportFileRecord } | undefined> {
    try {
      if (stamped.status === 'rejected') throw stamped.reason;
      const { size, mtimeMs } = stamped.value;
      const known = records.file(source.name, unit.key);
      if (known && known.size === size && known.mtimeMs === mtimeMs) return void summary.unchangedFiles++;
      const loaded = await unit.load();
      if (loaded === undefined) return void summary.notSessions++;
      const record = { size, mtimeMs, hash: loaded.hash };
      if (known?.hash !== record.hash) return { loaded, record };
      records.saveFile(source.name, unit.key, record);
      summary.unchangedFiles++;
    } catch (err) {
      summary.refused.push(`${unit.key}: could not be read (${errorMessage(err)}), skipped`);
    }
    return undefined;
  }

  async function importUnit(file: string, { loaded, record }: { loaded: LoadedUnit; record: ImportFileRecord }): Promise<void> {
    let parsed: ParsedFile;
    try {
      parsed = loaded.parse();
    } catch (err) {
      // A shape no importer foresaw: this file is reported, the others are still imported.
      summary.refused.push(`${file}: could not be read as a ${source.name} session (${errorMessage(err)}), skipped`);
      return;
    }
    summary.refused.push(...parsed.refused);
    for (const [what, n] of parsed.notUnderstood) summary.notUnderstood.set(what, (summary.notUnderstood.get(what) ?? 0) + n);
    // Refused whole (a file of the wrong shape or every line malformed, a database session
    // every row of which was refused): not recorded, so the next import reads it again and
    // says so again, and imports it once it is fixed, whatever its stamp.
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
 * Where the import reads and the session files there, found before anything is written: a
 * missing location is refused with the store untouched.
 */
export async function importFiles({ source, path: given, home }: ImportLocation): Promise<Omit<ImportRequest, 'onProgress' | 'onChanged'>> {
  const { defaultLocation, isSessionFile, locate, isSubAgentFile } = importSource(source);
  const location = given === undefined ? path.join(home, defaultLocation) : path.resolve(given);
  const listed = locate ? await locate(location) : await sessionFiles(location, isSessionFile);
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
