/**
 * What an import reads and remembers one at a time (docs/DESIGN.md#importing-from-other-agents):
 * a session file, or one session kept in another agent's database or storage tree. Each
 * has a key import-records.ts remembers it by, a cheap stamp that says whether it may have
 * changed, and contents whose hash says whether it did.
 */
import { createHash, type Hash } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import fs from 'node:fs/promises';
import { LoomError } from '../errors';
import type { ParsedFile } from './imported';

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
  /** Reads the unit asynchronously (other work runs meanwhile); throws when it cannot be read. */
  load(): Promise<LoadedUnit>;
}

/** What a source found in one file at the location: its units, and what to release after the import. */
export interface UnitsFound {
  units: ImportUnit[];
  /** Whether the units are a database's sessions (the summary counts them apart from files). */
  database?: boolean;
  close: () => Promise<void>;
}

/** A session file read whole and parsed by its source's importer. */
export function fileUnit(file: string, parse: (text: string, file: string) => ParsedFile): ImportUnit {
  return {
    key: file,
    stamp: () => fs.stat(file),
    load: async () => {
      const text = await readRegularFile(file);
      return { hash: createHash('sha256').update(text).digest('hex'), parse: () => parse(text, file) };
    },
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
export async function readRegularFile(file: string): Promise<string> {
  const handle = await fs.open(file, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
  try {
    if (!(await handle.stat()).isFile()) throw new LoomError('it is not a regular file', 'import_unreadable');
    return await handle.readFile({ encoding: 'utf8' });
  } finally {
    await handle.close();
  }
}
