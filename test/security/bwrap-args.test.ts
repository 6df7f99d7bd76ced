import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bwrapArgs, HIDDEN_FOLDERS } from '../../src/core/security/bwrap-args';
import { runShell, sandboxAvailable } from '../../src/core/security/sandbox';
import { nth } from '../support/elements';

/** The `--flag a b` triples of an argument list whose flag is `flag`, as [a, b]. */
function pairs(args: string[], flag: string): string[] {
  return args.flatMap((a, i) => (a === flag ? [nth(args, i + 1)] : []));
}

describe('bwrapArgs', () => {
  const base = { project: '/work/app', network: false, userNamespace: true };

  test('hides the data folders, then mounts the project read-write last', () => {
    const args = bwrapArgs(base);
    expect(pairs(args, '--tmpfs')).toEqual(HIDDEN_FOLDERS);
    expect(args.slice(args.indexOf('--bind'), args.indexOf('--bind') + 5)).toEqual(['--bind', '/work/app', '/work/app', '--chdir', '/work/app']);
    expect(args.lastIndexOf('--tmpfs')).toBeLessThan(args.indexOf('--bind'));
    expect(args).toEqual(expect.arrayContaining(['--cap-drop', 'ALL', '--unshare-all', '--unshare-user', '--disable-userns']));
    expect(args).not.toContain('--share-net');
  });

  test('a home folder outside /home and /root is hidden too; one inside them is not hidden twice', () => {
    expect(pairs(bwrapArgs({ ...base, home: '/data/users/ann/' }), '--tmpfs')).toContain('/data/users/ann');
    expect(pairs(bwrapArgs({ ...base, home: '/home/ann' }), '--tmpfs')).toEqual(HIDDEN_FOLDERS);
    expect(pairs(bwrapArgs({ ...base, home: '/' }), '--tmpfs')).toEqual(HIDDEN_FOLDERS);
    expect(pairs(bwrapArgs({ ...base, home: 'relative' }), '--tmpfs')).toEqual(HIDDEN_FOLDERS);
  });

  test('toolchains on PATH inside hidden folders come back read-only, by install root', () => {
    const searchPath = '/home/ann/.pyenv/shims:/home/ann/.cargo/bin:/home/ann:/usr/bin:relative/bin:/home/ann/.pyenv/bin';
    const shown = pairs(bwrapArgs({ ...base, home: '/home/ann', searchPath }), '--ro-bind-try');
    expect(shown.filter((p) => p.startsWith('/home'))).toEqual(['/home/ann/.pyenv', '/home/ann/.cargo', '/home/ann/.gitconfig', '/home/ann/.config/git']);
  });

  test('the resolver folder is shown only with network, and only when it is hidden', () => {
    const online = { ...base, network: true, resolverDir: '/run/systemd/resolve' };
    expect(pairs(bwrapArgs(online), '--ro-bind-try')).toContain('/run/systemd/resolve');
    expect(bwrapArgs(online)).toContain('--share-net');
    expect(pairs(bwrapArgs({ ...online, network: false }), '--ro-bind-try')).not.toContain('/run/systemd/resolve');
    expect(pairs(bwrapArgs({ ...online, resolverDir: '/etc' }), '--ro-bind-try')).not.toContain('/etc');
  });

  test('the seccomp filter is read from the descriptor given, when there is one', () => {
    expect(bwrapArgs({ ...base, seccompFd: 3 }).join(' ')).toContain('--seccomp 3');
    expect(bwrapArgs(base)).not.toContain('--seccomp');
  });

  test('without a user namespace the rest still holds', () => {
    const args = bwrapArgs({ ...base, userNamespace: false });
    expect(args).not.toContain('--unshare-user');
    expect(args).toEqual(expect.arrayContaining(['--cap-drop', 'ALL', '--unshare-all']));
  });
});

describe.skipIf(!sandboxAvailable())('a toolchain installed in the home folder (real sandbox)', () => {
  let root: string;
  let home: string;
  let project: string;

  beforeAll(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-toolchain-')));
    home = path.join(root, 'home');
    project = path.join(home, 'project');
    fs.mkdirSync(path.join(home, '.tool', 'bin'), { recursive: true });
    fs.mkdirSync(path.join(home, '.tool', 'share'));
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(home, '.tool', 'share', 'data'), 'tool data\n');
    fs.writeFileSync(path.join(home, '.tool', 'bin', 'mytool'), '#!/bin/sh\ncat "$(dirname "$0")/../share/data"\n', { mode: 0o755 });
    fs.writeFileSync(path.join(home, '.netrc'), 'machine x password hunter2\n');
  });

  afterAll(() => {
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  test('runs, read-only, while the rest of that home folder stays hidden', async () => {
    const env = { ...process.env, HOME: home, PATH: `${path.join(home, '.tool', 'bin')}:/usr/bin:/bin` };
    const r = await runShell('mytool; touch ~/.tool/share/new; cat ~/.netrc; ls -A ~', { cwd: project, timeoutMs: 20_000, env });
    expect(r.stdout.split('\n')).toEqual(['tool data', '.tool', 'project', '']);
    expect(r.stderr).toContain('Read-only file system');
    expect(r.stderr).toContain('No such file or directory');
    expect(fs.existsSync(path.join(home, '.tool', 'share', 'new'))).toBe(false);
  });
});
