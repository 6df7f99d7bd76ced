/**
 * `npm start` where the desktop app cannot run (no display here): one line says why, the
 * browser mode is served instead, and the URL it prints opens a working Loom.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';

test('npm start falls back to the browser mode with a one-line reason and a working URL', async ({ page }) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-e2e-start-'));
  const env: NodeJS.ProcessEnv = { ...process.env, LOOM_HOME: dataDir, LOOM_BASE_URL: 'http://127.0.0.1:9/v1' };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  // Its own process group: start.mjs runs the server as a child, and teardown ends both.
  const child = spawn(process.execPath, ['scripts/start.mjs', '--no-build', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  try {
    // Ready when the server prints its URL, which it does once it is listening.
    const { url, output } = await printedUrl(child);
    const reasons = output.split('\n').filter((line) => line.startsWith('Loom: the desktop app cannot start'));
    expect(reasons).toEqual([
      'Loom: the desktop app cannot start because there is no display (DISPLAY and WAYLAND_DISPLAY are unset); serving the browser mode instead.',
    ]);
    await page.goto(url);
    await expect(page.getByRole('button', { name: 'New session' }).first()).toBeVisible();
    await expect(page.getByText(`data ${dataDir}`)).toBeVisible();
  } finally {
    await stop(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

function printedUrl(child: ChildProcess): Promise<{ url: string; output: string }> {
  return new Promise((resolve, reject) => {
    let output = '';
    let errors = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /http:\/\/127\.0\.0\.1:\d+\/#token=\S+/.exec(output);
      if (found) resolve({ url: found[0], output });
    });
    child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`start.mjs exited (${code}) before printing a URL: ${output}${errors}`)));
  });
}

/** SIGTERM (start.mjs passes it on and the server closes its store); the whole group is killed if that takes over 10 s. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => killGroup(child.pid!), 10_000);
  await exited;
  clearTimeout(timer);
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err; // ESRCH: the group ended meanwhile
  }
}
