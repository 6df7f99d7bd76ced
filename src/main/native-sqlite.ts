/**
 * better-sqlite3 inside Electron needs a build for Electron's ABI, kept apart from the
 * Node build the CLI and the tests use: scripts/start.mjs fetches it into
 * .electron-native/ (prebuild-install --runtime electron). The main process hands its
 * path to the store through better-sqlite3's `nativeBinding` option.
 */
import fs from 'node:fs';
import path from 'node:path';

export const NATIVE_DIR = '.electron-native';
export const NATIVE_FILE = 'better_sqlite3.node';

/** The Electron build's path when it exists, else undefined (better-sqlite3's own lookup). */
export function electronNativeBinding(appRoot: string): string | undefined {
  const file = path.join(appRoot, NATIVE_DIR, NATIVE_FILE);
  return fs.existsSync(file) ? file : undefined;
}
