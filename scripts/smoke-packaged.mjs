// CI (Linux, under xvfb): the packaged AppImage, started as a user would start it.
//   1. its `loom` command (`Loom.AppImage --cli`) makes a session in a fresh data folder,
//      talking to a small OpenAI-compatible server started here;
//   2. the window opens on the same data folder and shows that session in its sidebar
//      (read through Chromium's remote debugging: the packaged app's --inspect is fused off);
//   3. closing the window quits the app, and the database is intact afterwards
//      (`loom --doctor`) and still lists the session.
// Exits non-zero with one line saying which step failed.
//   node scripts/smoke-packaged.mjs [path/to/Loom.AppImage]
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { root } from './electron-setup.mjs';

const TITLE_WORDS = 'smoke test of the packaged app';
const STEP_TIMEOUT_MS = 60_000;

function appImage() {
  const given = process.argv[2];
  if (given) return path.resolve(given);
  const found = fs.readdirSync(path.join(root, 'release')).find((f) => f.endsWith('.AppImage'));
  if (!found) throw new Error('no AppImage in release/ (run npm run dist first)');
  return path.join(root, 'release', found);
}

/** A one-reply OpenAI-compatible server: every chat completion streams the same short answer. */
function startModelServer() {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (!req.url?.endsWith('/chat/completions')) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta, finish = null) => ({
        id: 'smoke',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'smoke',
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
      res.write(`data: ${JSON.stringify(chunk({ role: 'assistant', content: 'The packaged app answers.' }))}\n\n`);
      res.write(`data: ${JSON.stringify(chunk({}, 'stop'))}\n\ndata: [DONE]\n\n`);
      res.end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

/** Runs the packaged `loom` command; returns its stdout, or throws with its stderr. */
function loom(binary, env, args) {
  const result = spawnSync(binary, ['--ozone-platform=headless', '--cli', ...args], { env, encoding: 'utf8', timeout: STEP_TIMEOUT_MS });
  if (result.status !== 0) throw new Error(`loom ${args.join(' ')} exited ${result.status}: ${(result.stderr || result.error?.message || '').trim()}`);
  return result.stdout;
}

async function main() {
  const binary = appImage();
  fs.chmodSync(binary, 0o755);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-smoke-'));
  const model = await startModelServer();
  const env = { ...process.env, APPIMAGE_EXTRACT_AND_RUN: '1', LOOM_HOME: dataDir, LOOM_BASE_URL: `http://127.0.0.1:${model.address().port}/v1` };
  try {
    loom(binary, env, ['-p', TITLE_WORDS]);
    const [session] = JSON.parse(loom(binary, env, ['--list-sessions', '--json']));
    if (!session) throw new Error('the packaged loom command made no session');
    console.log(`smoke: loom made session ${session.id}`);

    const port = await freePort();
    const app = spawn(binary, [`--remote-debugging-port=${port}`], { env, stdio: ['ignore', 'inherit', 'inherit'] });
    const exited = new Promise((resolve) => app.on('exit', (code) => resolve(code)));
    const browser = await connectWhenUp(port);
    const [context] = browser.contexts();
    const page = context.pages()[0] ?? (await context.waitForEvent('page', { timeout: STEP_TIMEOUT_MS }));
    // The title the model gave it, or else the first words of the message.
    const label = session.title || TITLE_WORDS;
    await page.getByRole('complementary', { name: 'Sessions' }).getByText(label).first().waitFor({ timeout: STEP_TIMEOUT_MS });
    console.log('smoke: the window shows the session in its sidebar');

    await page.close();
    const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('timeout'), STEP_TIMEOUT_MS))]);
    if (code !== 0) throw new Error(`the app did not quit cleanly after its window closed (${code})`);
    loom(binary, env, ['--doctor']);
    if (!loom(binary, env, ['--list-sessions']).includes(session.id.slice(0, 8))) throw new Error('the session is gone after quitting');
    console.log('smoke: quit cleanly; the database is intact and still holds the session');
  } finally {
    model.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Chromium's debugging endpoint answers once the app has started. */
async function connectWhenUp(port) {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  for (;;) {
    try {
      return await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`the window did not open (${err.message})`, { cause: err });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

main().catch((err) => {
  console.error(`smoke: ${err.message}`);
  process.exit(1);
});
