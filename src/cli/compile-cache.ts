/**
 * Node's compile cache for the `loom` bundle, in <data dir>/cache/compile: a later run loads
 * V8's code for each file instead of compiling it again, which was most of `loom -p`'s start.
 * Safe to delete at any time: Node checks every entry against its source's hash and makes
 * anew what is missing or stale. Only in a data folder that already exists: Node would make
 * a missing one with the default mode, where Loom makes its data folder private (0700).
 */
import fs from 'node:fs';
import { enableCompileCache } from 'node:module';
import path from 'node:path';

export function compileCacheFolder(dataDir: string): string {
  return path.join(dataDir, 'cache', 'compile');
}

/** Turns the cache on for the modules loaded from now on; a folder it cannot write just goes without. */
export function useCompileCache(dataDir: string): void {
  if (fs.existsSync(dataDir)) enableCompileCache(compileCacheFolder(dataDir));
}
