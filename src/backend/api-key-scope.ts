/**
 * Guarantee 8: an API key goes only to the model server it was given for.
 *
 * - A key saved in the settings belongs to the saved base URL: saving a key pins the URL in
 *   effect with it, and an update that changes the base URL without a new key forgets the
 *   saved key. (A key saved before that rule, with no URL of its own, belongs to the
 *   environment's URL.)
 * - The key from the environment (LOOM_API_KEY, OPENAI_API_KEY) or the command line belongs
 *   to the URL this run started with: the command line's, else LOOM_BASE_URL, else the default.
 *
 * Both settings stores (the browser mode's file, the desktop app's keychain-backed store)
 * are read and written only through SettingsService, which applies these two functions.
 */
import type { StoredSettings } from './settings-store';

/** A key and the one base URL it may be sent to. */
export interface ScopedKey {
  key: string | undefined;
  url: string;
}

/** The first key (in order of precedence) given for `baseUrl`; none when no key was. */
export function keyFor(baseUrl: string, keys: ScopedKey[]): string {
  for (const { key, url } of keys) {
    if (key !== undefined && url === baseUrl) return key;
  }
  return '';
}

/**
 * The saved settings after an update that moved the effective base URL from `before` to
 * `after`: a new key is pinned to `after`; without one, a changed URL drops the saved key.
 */
export function scopeSavedKey(next: StoredSettings, newKey: string | undefined, before: string, after: string): StoredSettings {
  if (newKey) return { ...next, baseUrl: after };
  if (after === before) return next;
  const forgotten = { ...next };
  delete forgotten.apiKey;
  return forgotten;
}
