/**
 * A full disk, whether SQLite (SQLITE_FULL) or the file system (ENOSPC) noticed it, is not a
 * bug: it gets one line telling the user what to do. The write that failed changed nothing
 * (SQLite rolls the transaction back; settings are written to a temp file, then renamed).
 */
export const DISK_FULL_MESSAGE = 'The disk is full: Loom could not save this change. Free some space and try again; nothing was lost.';

const DISK_FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC']);

/** True for a disk-full error, or one caused by it. */
export function isDiskFull(err: unknown): boolean {
  for (let cause = err, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    if (DISK_FULL_CODES.has(String((cause as NodeJS.ErrnoException).code))) return true;
  }
  return false;
}
