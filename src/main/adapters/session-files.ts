/**
 * Loom session files (`.loom`, the JSON export) opened from the operating system: named on
 * the command line on Windows and Linux (a double click, "Open with"), or by macOS's
 * open-file event. The file is read without following a link to a FIFO or device, and
 * within the import size limit; the import itself validates every field (docs/DESIGN.md#export-format).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { IMPORT_MAX_BODY_BYTES } from '../../shared/contract';

const SESSION_FILE_EXTENSION = '.loom';

/** The session files among a command line's arguments (never its flags). */
export function sessionFilesIn(argv: readonly string[]): string[] {
  return argv.filter((arg) => !arg.startsWith('-') && arg.toLowerCase().endsWith(SESSION_FILE_EXTENSION)).map((arg) => path.resolve(arg));
}

/** The file's text; throws one readable line when it is not a regular file, too large or unreadable. */
export async function readSessionFile(file: string): Promise<string> {
  const handle = await fsp.open(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0)).catch((err: NodeJS.ErrnoException) => {
    throw new Error(err.code === 'ENOENT' ? 'the file does not exist.' : `the file cannot be read (${err.code ?? err.message}).`, { cause: err });
  });
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error('it is not a regular file.');
    if (stat.size > IMPORT_MAX_BODY_BYTES) throw new Error(`it is larger than ${IMPORT_MAX_BODY_BYTES / (1024 * 1024)} MB.`);
    return await handle.readFile({ encoding: 'utf8' });
  } finally {
    await handle.close();
  }
}
