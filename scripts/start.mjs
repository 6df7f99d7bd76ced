// `npm start`: builds Loom and opens the desktop app. The first start fetches Electron's
// binary (npm install skips its download) and the Electron build of better-sqlite3 into
// .electron-native/. Where the desktop app cannot run — no display, no binary, no native
// build, or Electron dies at once — it says why in one line and serves the browser mode
// instead, printing the URL to open. `--browser` goes straight to the browser mode,
// `--no-build` starts what was built last; other arguments are passed to the browser mode
// (--port, --data-dir, --project, ...).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWeb } from './web.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const electronDir = path.join(root, 'node_modules/electron');
const nativeFile = path.join(root, '.electron-native/better_sqlite3.node');
/** Electron exiting this soon after launch means it could not run here (missing libraries…). */
const EARLY_EXIT_MS = 4000;

async function main() {
  const args = process.argv.slice(2).filter((a) => a !== '--no-build' && a !== '--browser');
  if (!process.argv.includes('--no-build')) {
    console.log('Building Loom…');
    await buildWeb();
  }
  const reason = process.argv.includes('--browser') ? 'you asked for the browser mode' : prepareDesktop();
  if (reason) return serveBrowserMode(reason, args);
  const failure = await runDesktop();
  if (failure) return serveBrowserMode(failure, args);
}

/** Makes sure Electron and its native module are there; returns why not, or null. */
function prepareDesktop() {
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return 'there is no display (DISPLAY and WAYLAND_DISPLAY are unset)';
  }
  if (!electronBinary()) {
    console.log('Fetching the Electron binary (first start)…');
    const install = spawnSync(process.execPath, [path.join(electronDir, 'install.js')], { stdio: 'pipe', timeout: 600_000 });
    if (install.status !== 0 || !electronBinary()) return `the Electron binary could not be fetched (${lastLine(install)})`;
  }
  if (!fs.existsSync(nativeFile)) {
    console.log('Fetching the Electron build of better-sqlite3 (first start)…');
    const problem = fetchNativeSqlite();
    if (problem) return `the Electron build of better-sqlite3 could not be fetched (${problem})`;
  }
  return null;
}

/** The Electron executable, when its download is in place. */
function electronBinary() {
  try {
    const relative = fs.readFileSync(path.join(electronDir, 'path.txt'), 'utf8').trim();
    const binary = path.join(electronDir, 'dist', relative);
    return fs.existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

/**
 * prebuild-install with the Electron runtime, run in a scratch copy of better-sqlite3's
 * package.json so the Node build in node_modules (used by the CLI and the tests) stays.
 */
function fetchNativeSqlite() {
  const electronVersion = JSON.parse(fs.readFileSync(path.join(electronDir, 'package.json'), 'utf8')).version;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-native-'));
  try {
    fs.copyFileSync(path.join(root, 'node_modules/better-sqlite3/package.json'), path.join(scratch, 'package.json'));
    const result = spawnSync(
      process.execPath,
      [
        path.join(root, 'node_modules/prebuild-install/bin.js'),
        '--runtime',
        'electron',
        '--target',
        electronVersion,
        '--arch',
        process.arch,
        '--platform',
        process.platform,
      ],
      { cwd: scratch, stdio: 'pipe', timeout: 300_000, env: { ...process.env, npm_config_nodedir: '' } },
    );
    const built = path.join(scratch, 'build/Release/better_sqlite3.node');
    if (result.status !== 0 || !fs.existsSync(built)) return lastLine(result);
    fs.mkdirSync(path.dirname(nativeFile), { recursive: true });
    fs.copyFileSync(built, nativeFile);
    return null;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Runs the desktop app until it quits; returns why it could not run, or null. */
function runDesktop() {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(electronBinary(), [root], { stdio: ['inherit', 'inherit', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      process.stderr.write(chunk);
    });
    for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
    child.on('error', (err) => resolve(`Electron could not be started (${err.message})`));
    child.on('exit', (code) => {
      if (code !== 0 && Date.now() - started < EARLY_EXIT_MS) resolve(`Electron exited at once (${lastLine({ stderr }) || `code ${code}`})`);
      else process.exit(code ?? 0);
    });
  });
}

function serveBrowserMode(reason, args) {
  console.log(`Loom: the desktop app cannot start because ${reason}; serving the browser mode instead.`);
  const child = spawn(process.execPath, [path.join(root, 'scripts/web.mjs'), '--no-build', ...args], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code) => process.exit(code ?? 0));
}

function lastLine(result) {
  const text = `${result.stderr ?? ''}`.trim() || `${result.stdout ?? ''}`.trim() || (result.error ? result.error.message : '');
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const meaningful =
    lines.find((l) => /^(Error|error|RequestError|HTTPError)\b|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|404/.test(l)) ?? lines.at(-1) ?? 'no output';
  return meaningful.slice(0, 160);
}

main().catch((err) => {
  console.error(`loom: ${err?.message ?? err}`);
  process.exit(1);
});
