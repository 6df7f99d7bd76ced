import fs from 'node:fs';

/**
 * What the bytes of a database file and its -wal say before SQLite is let near them.
 * SQLite itself treats an empty database beside a -wal as a new database and deletes the
 * -wal, and it reads a file cut short as if the missing pages were zeros; these cases are
 * recognised here first, from the file sizes and the 100-byte header.
 */
export type FileShape =
  /** loom.db, its -wal or its -shm is there but is not a regular file (a folder, a FIFO, a link…). */
  | { kind: 'not-a-file'; path: string; what: string }
  | { kind: 'absent' }
  /** Missing or empty, with no -wal content: a new database. */
  | { kind: 'new' }
  /** Missing or empty, but the -wal beside it holds changes whose database is gone. */
  | { kind: 'orphaned-wal'; walBytes: number; empty: boolean }
  /** Not an SQLite database at all: nothing SQLite can read. */
  | { kind: 'not-sqlite'; reason: string }
  /** Shorter than its header says: the pages that are there can still be read. */
  | { kind: 'truncated'; reason: string }
  | { kind: 'plausible' };

const HEADER_BYTES = 100;
const MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

export function walPath(file: string): string {
  return `${file}-wal`;
}

export function shmPath(file: string): string {
  return `${file}-shm`;
}

export function inspectFileShape(file: string): FileShape {
  for (const each of [file, walPath(file), shmPath(file)]) {
    const what = notARegularFile(each);
    if (what) return { kind: 'not-a-file', path: each, what };
  }
  const size = fs.statSync(file, { throwIfNoEntry: false })?.size;
  const walBytes = fs.statSync(walPath(file), { throwIfNoEntry: false })?.size ?? 0;
  if (!size) {
    if (walBytes > 0) return { kind: 'orphaned-wal', walBytes, empty: size === 0 };
    return size === undefined ? { kind: 'absent' } : { kind: 'new' };
  }
  if (size < HEADER_BYTES) return { kind: 'not-sqlite', reason: `it is only ${size} bytes long` };
  const header = readHeader(file);
  if (!header.subarray(0, MAGIC.length).equals(MAGIC)) return { kind: 'not-sqlite', reason: 'it does not start with an SQLite header' };
  const pageSize = pageSizeOf(header);
  if (pageSize === undefined) return { kind: 'not-sqlite', reason: 'its header names an impossible page size' };
  // Only without a -wal: a checkpoint interrupted by a crash may leave the file short of
  // its new header until the -wal is replayed.
  const expected = headerPageCount(header) * pageSize;
  if (walBytes === 0 && size < expected) {
    return { kind: 'truncated', reason: `it is cut short: ${size} of the ${expected} bytes its header describes` };
  }
  return { kind: 'plausible' };
}

/**
 * What is at `file` when it is there but not a regular file; null when it is one or is
 * missing. SQLite would read a folder as an I/O error, block on a FIFO, and follow a link
 * to wherever it points: none of them is opened, whatever it is.
 */
function notARegularFile(file: string): string | null {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!stat || stat.isFile()) return null;
  if (stat.isDirectory()) return 'a folder';
  if (stat.isSymbolicLink()) return 'a symbolic link';
  if (stat.isFIFO()) return 'a named pipe (FIFO)';
  if (stat.isSocket()) return 'a socket';
  return 'a device';
}

/** The one line for a shape `not-a-file`: the store and the doctor refuse it alike. */
export function notAFileMessage(shape: { path: string; what: string }): string {
  return `${shape.path} is ${shape.what}, not a regular file: Loom keeps its sessions only in regular files, and left it as it is. Move it away and try again.`;
}

function readHeader(file: string): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, header, 0, HEADER_BYTES, 0);
  } finally {
    fs.closeSync(fd);
  }
  return header;
}

/** Bytes 16–17: a power of two from 512 to 32768, or 1 for 65536. */
function pageSizeOf(header: Buffer): number | undefined {
  const raw = header.readUInt16BE(16);
  const size = raw === 1 ? 65_536 : raw;
  return size >= 512 && (size & (size - 1)) === 0 ? size : undefined;
}

/** Bytes 28–31, trusted only while bytes 92–95 match the change counter (24–27). */
function headerPageCount(header: Buffer): number {
  return header.readUInt32BE(24) === header.readUInt32BE(92) ? header.readUInt32BE(28) : 0;
}
