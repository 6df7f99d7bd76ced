/**
 * An error whose message is written for the user: one clear line, no stack trace.
 * Anything else that escapes to the top level is a bug and is reported as such.
 */
import { DISK_FULL_MESSAGE, isDiskFull } from './disk-full';

/**
 * Marks every LoomError, whichever copy of this module made it: the `loom` command's bundles
 * each carry their own copy (docs/ARCHITECTURE.md#the-node-build), so `instanceof` fails
 * across them.
 */
const LOOM_ERROR = Symbol.for('loom.error');

export class LoomError extends Error {
  readonly [LOOM_ERROR] = true;

  constructor(
    message: string,
    readonly code: string = 'loom_error',
  ) {
    super(message);
    this.name = 'LoomError';
  }
}

export function isLoomError(err: unknown): err is LoomError {
  return err instanceof Error && LOOM_ERROR in err;
}

/** The line to show for an error; a full disk gets its own clear advice (disk-full.ts). */
export function errorMessage(err: unknown): string {
  if (isDiskFull(err)) return DISK_FULL_MESSAGE;
  return err instanceof Error ? err.message : String(err);
}
