// What the desktop app needs beyond `npm ci`, fetched on first need: Electron's binary
// (npm ci skips its download, see package.json allowScripts) and the Electron-ABI build
// of better-sqlite3 in .electron-native/ (the Node build in node_modules stays for the CLI
// and the tests). Used by `npm start` and by CI (scripts/fetch-electron.mjs).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const electronDir = path.join(root, 'node_modules/electron');
/** Where `npm start` and the desktop tests find the Electron build of better-sqlite3. */
export const nativeFile = path.join(root, '.electron-native/better_sqlite3.node');

/** Fetches what is missing; returns why the desktop app cannot have it, or null. */
export function fetchElectron() {
  if (!electronBinary()) {
    console.log('Fetching the Electron binary (first start)…');
    const install = spawnSync(process.execPath, [path.join(electronDir, 'install.js')], { stdio: 'pipe', timeout: 600_000 });
    if (install.status !== 0 || !electronBinary()) return `the Electron binary could not be fetched (${lastLine(install)})`;
  }
  if (!fs.existsSync(nativeFile)) {
    console.log('Fetching the Electron build of better-sqlite3 (first start)…');
    const problem = fetchNativeSqlite(process.platform, process.arch, nativeFile);
    if (problem) return `the Electron build of better-sqlite3 could not be fetched (${problem})`;
  }
  return null;
}

/** The Electron executable, when its download is in place. */
export function electronBinary() {
  try {
    const relative = fs.readFileSync(path.join(electronDir, 'path.txt'), 'utf8').trim();
    const binary = path.join(electronDir, 'dist', relative);
    return fs.existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

export function electronVersion() {
  return JSON.parse(fs.readFileSync(path.join(electronDir, 'package.json'), 'utf8')).version;
}

/**
 * prebuild-install with the Electron runtime, run in a scratch copy of better-sqlite3's
 * package.json so the Node build in node_modules (used by the CLI and the tests) stays.
 * Returns why it failed, or null once `target` holds the build for `platform`/`arch`.
 */
export function fetchNativeSqlite(platform, arch, target) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-native-'));
  try {
    fs.copyFileSync(path.join(root, 'node_modules/better-sqlite3/package.json'), path.join(scratch, 'package.json'));
    const result = spawnSync(
      process.execPath,
      [path.join(root, 'node_modules/prebuild-install/bin.js'), '--runtime', 'electron', '--target', electronVersion(), '--arch', arch, '--platform', platform],
      // This machine's npm config sets nodedir=/usr, which would give the Node ABI.
      { cwd: scratch, stdio: 'pipe', timeout: 300_000, env: { ...process.env, npm_config_nodedir: '' } },
    );
    const built = path.join(scratch, 'build/Release/better_sqlite3.node');
    if (result.status !== 0 || !fs.existsSync(built)) return lastLine(result);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(built, target);
    return null;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** The line of a child's output that says what went wrong. */
export function lastLine(result) {
  const text = `${result.stderr ?? ''}`.trim() || `${result.stdout ?? ''}`.trim() || (result.error ? result.error.message : '');
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const meaningful = lines.find((l) => /^\w*Error\b|^error\b|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|404/.test(l)) ?? lines.at(-1) ?? 'no output';
  return meaningful.slice(0, 160);
}
