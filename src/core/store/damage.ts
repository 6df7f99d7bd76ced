import path from 'node:path';
import { LoomError, errorMessage } from '../errors';

/**
 * SQLite's codes for a file whose bytes do not make a valid database. They can come from
 * any query, long after the file was opened, when it first reads a broken page.
 */
const DAMAGE_CODES = /^SQLITE_(CORRUPT|NOTADB)/;

export function isDamageError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && DAMAGE_CODES.test(code);
}

/**
 * The one line a damaged loom.db gets everywhere: what is wrong and the way out.
 * `file` is left out where it is not known (the bridge); the doctor command then has
 * no --data-dir.
 */
export function damagedDatabaseError(file: string | undefined, reason: string): LoomError {
  const doctor = file === undefined ? 'loom --doctor' : `loom --doctor --data-dir ${shellWord(path.dirname(file))}`;
  return new LoomError(
    `The session database ${file ?? 'loom.db'} is damaged (${reason}). Run \`${doctor}\` to check it and salvage what can be read into a new file; the original is left as it is.`,
    'db_damaged',
  );
}

/** `err` as the damaged-database line when SQLite reported damage; otherwise `err` itself. */
export function explainDamage(err: unknown, file?: string): unknown {
  return isDamageError(err) ? damagedDatabaseError(file, errorMessage(err)) : err;
}

/** A path a user can paste into a shell as it is. */
export function shellWord(text: string): string {
  return /^[\w./@%+=:,-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
