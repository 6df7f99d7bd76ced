/**
 * `npm start` where the desktop app cannot run (no display here): one line says why, the
 * browser mode is served instead, and the URL it prints opens a working Loom.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';

test('npm start falls back to the browser mode with a one-line reason and a working URL', async ({ page }) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-e2e-start-'));
  const env: NodeJS.ProcessEnv = { ...process.env, LOOM_HOME: dataDir, LOOM_BASE_URL: 'http://127.0.0.1:9/v1' };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  const child = spawn(process.execPath, ['scripts/start.mjs', '--no-build', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const found = /http:\/\/127\.0\.0\.1:\d+\/#token=\S+/.exec(output);
        if (found) resolve(found[0]);
      });
      child.on('exit', (code) => reject(new Error(`start.mjs exited (${code}): ${output}`)));
    });
    const reasons = output.split('\n').filter((line) => line.startsWith('Loom: the desktop app cannot start'));
    expect(reasons).toEqual([
      'Loom: the desktop app cannot start because there is no display (DISPLAY and WAYLAND_DISPLAY are unset); serving the browser mode instead.',
    ]);
    await page.goto(url);
    await expect(page.getByRole('button', { name: 'New session' }).first()).toBeVisible();
    await expect(page.getByText(`data ${dataDir}`)).toBeVisible();
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
