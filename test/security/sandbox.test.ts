import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_OUTPUT_BYTES, NO_SANDBOX_NOTE, runShell, sandboxAvailable, SANDBOX_OFF_NOTE } from '../../src/core/security/sandbox';

const hasBwrap = sandboxAvailable();
if (!hasBwrap) console.warn('bubblewrap is not usable here: the sandboxed run_bash tests are SKIPPED (apt-get install bubblewrap).');

let root: string;
let project: string;
let outside: string;
let server: http.Server;
let port: number;

beforeAll(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-sandbox-')));
  project = path.join(root, 'project');
  outside = path.join(root, 'outside');
  fs.mkdirSync(project);
  fs.mkdirSync(outside);
  server = http.createServer((_req, res) => res.end('reachable'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(root, { recursive: true, force: true });
});

const base = () => ({ cwd: project, timeoutMs: 20_000 });

/** Live processes whose command line contains `marker` (zombies have an empty one). */
function processesWith(marker: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The `sleep <marker>` processes themselves, not the shell or sandbox whose command lines name them. */
function sleepsWith(marker: string): number[] {
  return processesWith(marker).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${marker}\0`;
    } catch {
      return false;
    }
  });
}

async function eventuallyNone(marker: string): Promise<number[]> {
  for (let i = 0; i < 50 && processesWith(marker).length; i++) await new Promise((r) => setTimeout(r, 50));
  return processesWith(marker);
}

describe.each([
  ['sandboxed', true],
  ['unsandboxed', false],
])('runShell (%s)', (_name, sandbox) => {
  const skip = sandbox && !hasBwrap;

  test.skipIf(skip)('runs in the project folder, returns stdout, stderr and the exit code', async () => {
    const r = await runShell('pwd; echo oops >&2; exit 3', { ...base(), sandbox });
    expect(r).toMatchObject({ stdout: `${project}\n`, stderr: 'oops\n', exitCode: 3, timedOut: false, sandboxed: sandbox });
  });

  test.skipIf(skip)('writes inside the project folder reach the real file', async () => {
    const r = await runShell('mkdir -p out && echo built > out/result.txt', { ...base(), sandbox });
    expect(r.exitCode).toBe(0);
    expect(fs.readFileSync(path.join(project, 'out', 'result.txt'), 'utf8')).toBe('built\n');
  });

  test.skipIf(skip)('only the allowlisted and passed variables are in the environment', async () => {
    const env = {
      ...process.env,
      OPENAI_API_KEY: 'sk-test-abcdefghijklmnopqrstuvwxyz',
      GITHUB_TOKEN: 'ghp_x',
      PLAIN_SETTING: 'visible',
      OTHER_SETTING: 'hidden',
    };
    const r = await runShell('env', { ...base(), sandbox, env, passEnv: ['PLAIN_SETTING'] });
    expect(r.stdout).toContain('PLAIN_SETTING=visible');
    expect(r.stdout).not.toContain('OTHER_SETTING');
    expect(r.stdout).not.toContain('OPENAI_API_KEY');
    expect(r.stdout).not.toContain('GITHUB_TOKEN');
    expect(r.stdout).not.toContain('sk-test');
  });

  test.skipIf(skip)('a timeout kills the whole process tree', async () => {
    const marker = sandbox ? '987.125' : '987.25';
    const r = await runShell(`sleep ${marker} & sleep ${marker}`, { ...base(), sandbox, timeoutMs: 700 });
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(await eventuallyNone(marker)).toEqual([]);
  });

  test.skipIf(skip)('an abort signal kills the whole process tree', async () => {
    const marker = sandbox ? '986.125' : '986.25';
    const controller = new AbortController();
    const pending = runShell(`sleep ${marker} & sleep ${marker} & wait`, { ...base(), sandbox, signal: controller.signal });
    // Both sleeps running: the sandbox is set up (its command lines name the marker from the start).
    for (let i = 0; i < 250 && sleepsWith(marker).length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    const r = await pending;
    expect(r).toMatchObject({ aborted: true, timedOut: false, exitCode: null });
    expect(await eventuallyNone(marker)).toEqual([]);
  });

  test.skipIf(skip)('background jobs do not outlive the command', async () => {
    const marker = sandbox ? '985.125' : '985.25';
    const r = await runShell(`(sleep ${marker} &) ; echo started`, { ...base(), sandbox });
    expect(r.stdout).toBe('started\n');
    expect(await eventuallyNone(marker)).toEqual([]);
  });

  test.skipIf(skip)('output is capped while it is read', async () => {
    const r = await runShell(`head -c ${MAX_OUTPUT_BYTES + 5000} /dev/zero | tr '\\0' a`, { ...base(), sandbox });
    expect(r.stdout.startsWith('a'.repeat(1000))).toBe(true);
    expect(r.stdout).toContain('[output cut: 5000 more bytes not kept]');
    expect(r.stdout.length).toBeLessThan(MAX_OUTPUT_BYTES + 100);
  });
});

describe('the sandbox boundary (bubblewrap)', () => {
  test.skipIf(!hasBwrap)('writes outside the project folder fail and leave nothing behind', async () => {
    const home = path.join(os.homedir(), `loom-sandbox-probe-${process.pid}`);
    const sibling = path.join(outside, 'escaped.txt');
    const r = await runShell(`echo x > ${home}; echo x > /etc/loom-probe; echo x > ${sibling}; touch /usr/loom-probe`, base());
    expect(r.sandboxed).toBe(true);
    expect(r.stderr).toMatch(/Read-only file system|No such file or directory/);
    expect(fs.existsSync(home)).toBe(false);
    expect(fs.existsSync('/etc/loom-probe')).toBe(false);
    expect(fs.existsSync(sibling)).toBe(false);
    expect(fs.existsSync('/usr/loom-probe')).toBe(false);
  });

  test.skipIf(!hasBwrap)('a home folder or PATH entry that does not exist leaves the sandbox working', async () => {
    // Service accounts run with HOME=/nonexistent; bubblewrap cannot mount over a missing folder.
    const env = { ...process.env, HOME: '/nonexistent-loom-home', PATH: `/nonexistent-loom-bin:${process.env.PATH}` };
    const r = await runShell('echo ran > out.txt && cat out.txt', { ...base(), env });
    expect(r).toMatchObject({ stdout: 'ran\n', exitCode: 0, sandboxed: true });
  });

  test.skipIf(!hasBwrap)('/tmp is private to the command', async () => {
    const name = `loom-private-tmp-${process.pid}`;
    const r = await runShell(`echo x > /tmp/${name} && cat /tmp/${name}`, base());
    expect(r.stdout).toBe('x\n');
    expect(fs.existsSync(path.join('/tmp', name))).toBe(false);
  });

  test.skipIf(!hasBwrap)('no network unless allowed', async () => {
    const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`;
    const offline = await runShell(probe, base());
    expect(offline.exitCode).not.toBe(0);
    expect(offline.stdout).not.toContain('reachable');
    const online = await runShell(probe, { ...base(), network: true });
    expect(online.stdout).toContain('reachable');
  });
});

describe('without a sandbox', () => {
  test('the result says plainly that the command ran unconfined', async () => {
    const r = await runShell('true', { ...base(), sandbox: false });
    expect(r).toMatchObject({ sandboxed: false, sandboxNote: SANDBOX_OFF_NOTE });
    expect(NO_SANDBOX_NOTE).toBe('No OS sandbox available (install bubblewrap); the command ran unconfined.');
  });

  test('LOOM_SANDBOX=off turns it off too', async () => {
    process.env.LOOM_SANDBOX = 'off';
    try {
      expect((await runShell('true', base())).sandboxed).toBe(false);
    } finally {
      delete process.env.LOOM_SANDBOX;
    }
  });
});
