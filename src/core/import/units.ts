/**
 * What an import reads and remembers one at a time (docs/DESIGN.md#importing-from-other-agents):
 * a session file, or one session kept in another agent's database or storage tree. Each
 * has a key import-records.ts remembers it by, a cheap stamp that says whether it may have
 * changed, and contents whose hash says whether it did.
 */
import { createHash, type Hash } from 'node:crypto';
import { constants as fsConstants, type Stats } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import { LoomError } from '../errors';
import { firstLine } from './first-line';
import type { ParsedFile } from './imported';

/** A source's importer of one session file; `modifiedAt`: the file's mtime, for a source that records no times of its own. */
export type FileParser = (text: string, file: string, modifiedAt: string) => ParsedFile;

/** Size and time, as a file's stat gives them; a database session's row count and last update. */
export interface ImportStamp {
  size: number;
  mtimeMs: number;
}

export interface LoadedUnit {
  /** Of everything the unit's conversations are made from: unchanged, nothing is parsed. */
  hash: string;
  parse(): ParsedFile;
}

export interface ImportUnit {
  /**
   * What import-records.ts remembers the unit by, and what a refusal of it names: a file's
   * path, or a database's path, '#' and a session id.
   */
  key: string;
  stamp(): Promise<ImportStamp>;
  /**
   * Reads the unit asynchronously (other work runs meanwhile); throws when it cannot be read.
   * Undefined for a file that is not one of the source's sessions (its first line says so):
   * counted, neither refused nor remembered.
   */
  load(): Promise<LoadedUnit | undefined>;
}

/** What a source found in one file at the location: its units, and what to release after the import. */
export interface UnitsFound {
  units: ImportUnit[];
  /** Whether the units are a database's sessions (the summary counts them apart from files). */
  database?: boolean;
  close: () => Promise<void>;
}

/**
 * A session file read whole and parsed by its source's importer; with `isSessionStart`, only
 * a file whose first line begins one of the source's sessions is read beyond that line.
 */
export function fileUnit(file: string, parse: FileParser, isSessionStart?: (firstLine: string | undefined) => boolean): ImportUnit {
  return {
    key: file,
    stamp: () => fs.stat(file),
    load: () =>
      withRegularFile(file, async (handle, stats) => {
        if (isSessionStart && !isSessionStart(await firstLine(handle))) return undefined;
        const text = await handle.readFile({ encoding: 'utf8' });
        const modifiedAt = new Date(stats.mtimeMs).toISOString();
        return { hash: createHash('sha256').update(text).digest('hex'), parse: () => parse(text, file, modifiedAt) };
      }),
  };
}

export function singleFile(unit: ImportUnit): UnitsFound {
  return { units: [unit], close: async () => {} };
}

/** A hash of several strings that cannot be told from another split of the same text. */
export function contentHash(): { add(text: string): void; digest(): string } {
  const hash: Hash = createHash('sha256');
  return {
    add: (text) => hash.update(`${text.length}:`).update(text),
    digest: () => hash.digest('hex'),
  };
}

/**
 * The text of a file that is still a regular file when opened: the listing saw one, but it
 * may have been swapped since for a FIFO (whose read would wait for a writer forever) or a
 * device. O_NONBLOCK makes the open itself return at once; fstat on the handle judges what
 * was opened, as the `.loom` reader and the file tools do.
 */
export function readRegularFile(file: string): Promise<string> {
  return withRegularFile(file, (handle) => handle.readFile({ encoding: 'utf8' }));
}

/** `read` given the open file and its fstat, once they say it is a regular file (readRegularFile); closed after. */
async function withRegularFile<T>(file: string, read: (handle: FileHandle, stats: Stats) => Promise<T>): Promise<T> {
  const handle = await fs.open(file, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new LoomError('it is not a regular file', 'import_unreadable');
    return await read(handle, stats);
  } finally {
    await handle.close();
  }
}
