/**
 * Opening better-sqlite3 connections at the least cost per `loom` call (docs/DESIGN.md#command-line).
 * The `loom` bundle carries better-sqlite3's JavaScript (scripts/build-node.mjs): loading it
 * from node_modules as CommonJS took ~6 ms of module resolution and loading. Only the native
 * module is loaded from disk, named by its path: the desktop app passes its Electron build,
 * anything else gets npm's, which also spares the `bindings` package's search for it.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import Database from 'better-sqlite3';

/** undefined until looked for; null when npm's build is not where npm puts it (then `bindings` searches). */
let npmBuild: string | null | undefined;

function npmNativeBuild(): string | undefined {
  if (npmBuild === undefined) {
    const entry = createRequire(import.meta.url).resolve('better-sqlite3');
    const file = path.join(path.dirname(entry), '..', 'build', 'Release', 'better_sqlite3.node');
    npmBuild = fs.existsSync(file) ? file : null;
  }
  return npmBuild ?? undefined;
}

export function openSqlite(file: string, options: Database.Options = {}): Database.Database {
  return new Database(file, { ...options, nativeBinding: options.nativeBinding ?? npmNativeBuild() });
}
