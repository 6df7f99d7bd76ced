/**
 * An error whose message is written for the user: one clear line, no stack trace.
 * Anything else that escapes to the top level is a bug and is reported as such.
 */
export class LoomError extends Error {
  constructor(message: string, readonly code: string = 'loom_error') {
    super(message);
    this.name = 'LoomError';
  }
}

export function isLoomError(err: unknown): err is LoomError {
  return err instanceof LoomError;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
