/**
 * A new session's id, a random UUID. node:crypto is loaded on the first one rather than
 * with the store: every `loom --list-sessions` would pay ~2 ms for a module only a
 * command that makes a session needs (docs/DESIGN.md#command-line).
 */
import type * as NodeCrypto from 'node:crypto';
import { createRequire } from 'node:module';

let crypto: typeof NodeCrypto | undefined;

export function newSessionId(): string {
  crypto ??= createRequire(import.meta.url)('node:crypto') as typeof NodeCrypto;
  return crypto.randomUUID();
}
