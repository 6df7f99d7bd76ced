/**
 * Node's compile cache for the `loom` bundle, in <data dir>/cache/compile: a later run loads
 * V8's code for each file instead of compiling it again, which was most of `loom -p`'s start.
 * Safe to delete at any time: Node checks every entry against its source's hash and makes
 * anew what is missing or stale.
 *
 * The folder is made only after a command succeeded, and the cache used only where it
 * exists: Node makes its folder as soon as the cache is turned on, and a refused command
 * (a data folder Loom will not use, a damaged loom.db) must leave the data folder as it was.
 */
import fs from 'node:fs';
import { enableCompileCache } from 'node:module';
import path from 'node:path';

export function compileCacheFolder(dataDir: string): string {
  return path.join(dataDir, 'cache', 'compile');
}

/** Turns the cache on for the modules loaded from now on, where its folder exists. */
export function useCompileCache(dataDir: string): void {
  const folder = compileCacheFolder(dataDir);
  if (fs.existsSync(folder)) enableCompileCache(folder);
}

/** After a command that succeeded: makes the folder for the next run, inside a data folder that exists (Loom makes that one itself, 0700). */
export function prepareCompileCache(dataDir: string): void {
  if (!fs.existsSync(dataDir)) return;
  try {
    fs.mkdirSync(compileCacheFolder(dataDir), { recursive: true, mode: 0o700 });
  } catch {
    // A data folder Loom can read but not write (or a full disk): it goes without the cache.
  }
}
