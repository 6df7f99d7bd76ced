/**
 * A new session's id, a random UUID. node:crypto is loaded on the first one rather than
 * with the store: every `loom --list-sessions` would pay ~2 ms for a module only a
 * command that makes a session needs (docs/DESIGN.md#command-line).
 */
import type * as NodeCrypto from 'node:crypto';
import { createRequire } from 'node:module';

let crypto: typeof NodeCrypto | undefined;

/** What every session id newSessionId makes looks like (a UUID): a text from elsewhere (a teammate's row) is checked against it. */
export const SESSION_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function newSessionId(): string {
  crypto ??= createRequire(import.meta.url)('node:crypto') as typeof NodeCrypto;
  return crypto.randomUUID();
}
