/**
 * Opening better-sqlite3 connections at the least cost per `loom` call (docs/DESIGN.md#command-line).
 * The `loom` bundle carries better-sqlite3's JavaScript (scripts/build-node.mjs): loading it
 * from node_modules as CommonJS took ~6 ms of module resolution and loading. Only the native
 * module is loaded from disk, named by its path, which spares better-sqlite3's own search.
 * It is a Node-API build, so the same file serves Node (the CLI, the tests) and Electron.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import Database from 'better-sqlite3';
import { LoomError, errorMessage } from '../errors';

/** better-sqlite3 ships a Node-API build per platform inside its npm package. */
const NPM_BUILD = path.join('better-sqlite3', 'prebuilds', `${prebuildTarget()}.node`);

/** better-sqlite3's own name for this platform's build (lib/binding.js): musl Linux apart from glibc. */
function prebuildTarget(): string {
  return `${process.platform === 'linux' && isMusl() ? 'linuxmusl' : process.platform}-${process.arch}`;
}

function isMusl(): boolean {
  try {
    return /\/ld-musl-[^/\s]*\.so/.test(fs.readFileSync('/proc/self/maps', 'latin1'));
  } catch {
    return false;
  }
}

/** undefined until looked for; null when npm's build is not where npm puts it (then better-sqlite3 searches). */
let npmBuild: string | null | undefined;

function npmNativeBuild(): string | undefined {
  if (npmBuild === undefined) {
    // This file is three folders below the checkout, as source (src/core/store) and bundled
    // (dist/chunks/<entries>): looking there first spares resolving the package, ~1 ms.
    // A plain path (import.meta.dirname), not a URL: the first URL getter costs ~3 ms.
    const inCheckout = path.join(import.meta.dirname, '..', '..', '..', 'node_modules', NPM_BUILD);
    npmBuild = fs.existsSync(inCheckout) ? inCheckout : resolvedNpmBuild();
  }
  return npmBuild ?? undefined;
}

/** Where Node finds the package from here (a hoisted node_modules, an installed app). */
function resolvedNpmBuild(): string | null {
  const packageDir = path.dirname(path.dirname(createRequire(import.meta.url).resolve('better-sqlite3')));
  const file = path.join(path.dirname(packageDir), NPM_BUILD);
  return fs.existsSync(file) ? file : null;
}

let npmAddon: object | undefined;

/**
 * npm's build, loaded once with process.dlopen and handed to better-sqlite3 as the addon
 * itself: given a path, it would load it through a `require` made for the purpose, whose
 * module loader costs ~4 ms of every `loom` start.
 */
function npmBinding(): object | undefined {
  if (npmAddon) return npmAddon;
  const file = npmNativeBuild();
  if (file === undefined) return undefined;
  const module = { exports: {} };
  process.dlopen(module, file);
  return (npmAddon = module.exports);
}

export function openSqlite(file: string, options: Database.Options = {}): Database.Database {
  // @types/better-sqlite3 types nativeBinding as a path only; the library takes the addon too.
  const nativeBinding = (options.nativeBinding ?? npmBinding()) as string | undefined;
  return new Database(file, { ...options, nativeBinding });
}

let loads = false;

/**
 * Loads the native module into a throwaway in-memory database before any file is touched,
 * so a platform without a build (or a damaged install) is one clear line, not a half-made
 * data folder. `nativeBinding` is for the test of that line.
 */
export function ensureSqliteLoads(nativeBinding?: string): void {
  if (loads && nativeBinding === undefined) return;
  try {
    openSqlite(':memory:', { nativeBinding }).close();
  } catch (err) {
    // Node's load errors go on with a require stack: the first line says what is wrong.
    const reason = errorMessage(err).split('\n')[0];
    throw new LoomError(
      `The SQLite module for ${process.platform}-${process.arch} could not be loaded (${reason}); reinstall Loom (\`npm ci\`), or see README.md for the supported platforms.`,
      'db_native',
    );
  }
  if (nativeBinding === undefined) loads = true;
}
