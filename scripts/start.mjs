// `npm start`: builds Loom and opens the desktop app. The first start fetches Electron's
// binary (npm install skips its download). Where the desktop app cannot run — no display,
// no binary, or Electron dies at once — it says why in one line and serves the browser mode
// instead, printing the URL to open. `--browser` goes straight to the browser mode,
// `--no-build` starts what was built last; other arguments are passed to the desktop app
// (it reads --data-dir and --project) and to the browser mode (--port, --data-dir, --project, ...).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { electronBinary, fetchElectron, lastLine, root } from './electron-setup.mjs';
import { refuseOldNode } from './node-floor.mjs';
import { buildWeb } from './web.mjs';

/** Electron exiting this soon after launch means it could not run here (missing libraries…). */
const EARLY_EXIT_MS = 4000;

async function main() {
  refuseOldNode();
  const args = process.argv.slice(2).filter((a) => a !== '--no-build' && a !== '--browser');
  if (!process.argv.includes('--no-build')) {
    console.log('Building Loom…');
    await buildWeb();
  }
  const reason = process.argv.includes('--browser') ? 'you asked for the browser mode' : prepareDesktop();
  if (reason) return serveBrowserMode(reason, args);
  const failure = await runDesktop(args);
  if (failure) return serveBrowserMode(failure, args);
}

/** Returns why the desktop app cannot run here, or null once it has what it needs. */
function prepareDesktop() {
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return 'there is no display (DISPLAY and WAYLAND_DISPLAY are unset)';
  }
  return fetchElectron();
}

/** Runs the desktop app until it quits; returns why it could not run, or null. */
function runDesktop(args) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(electronBinary(), [root, ...args], { stdio: ['inherit', 'inherit', 'pipe'] });
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

main().catch((err) => {
  console.error(`loom: ${err?.message ?? err}`);
  process.exit(1);
});
