// What the desktop app needs beyond `npm ci`, fetched on first need: Electron's binary
// (npm ci skips its download, see package.json allowScripts). better-sqlite3 needs nothing
// more: its npm package carries Node-API builds, which Electron loads as Node does. Used by
// `npm start` and by CI (scripts/fetch-electron.mjs).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const electronDir = path.join(root, 'node_modules/electron');

/** Fetches what is missing; returns why the desktop app cannot have it, or null. */
export function fetchElectron() {
  if (!electronBinary()) {
    console.log('Fetching the Electron binary (first start)…');
    const install = spawnSync(process.execPath, [path.join(electronDir, 'install.js')], { stdio: 'pipe', timeout: 600_000 });
    if (install.status !== 0 || !electronBinary()) return `the Electron binary could not be fetched (${lastLine(install)})`;
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
