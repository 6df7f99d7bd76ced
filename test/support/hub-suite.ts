/**
 * `describe` for a file of hub tests (test/support/postgres.ts): the hub tests run where
 * CI installs the postgresql package (Linux); elsewhere the suite is skipped with the
 * reason in its name, never silently.
 */
import { describe } from 'vitest';

/** Why the hub tests do not run here, or undefined when they do. */
export const HUB_TESTS_SKIP_REASON =
  process.platform === 'linux' ? undefined : `PostgreSQL hub tests run on Linux only (CI installs the postgresql package there), not on ${process.platform}`;

export function describeWithHub(name: string, body: () => void): void {
  if (HUB_TESTS_SKIP_REASON) describe.skip(`${name} (skipped: ${HUB_TESTS_SKIP_REASON})`, body);
  else describe(name, body);
}
