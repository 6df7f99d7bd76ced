/**
 * Guarantee 5: the shell sandbox has no network and no way out. Each attack runs through
 * the real bubblewrap sandbox (runShell) and is judged on the host: the server that saw no
 * connection, the file that did not appear, the secret that was not printed. Where a probe
 * could silently fail for an unrelated reason, the same probe is first shown to work
 * without the sandbox, so these tests can fail.
 *
 * This machine runs tests as root, which is the case that matters most: Loom in a
 * container or CI job, where a sandboxed root used to keep every capability.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runShell, sandboxAvailable, type ShellOptions } from '../../src/core/security/sandbox';

const hasBwrap = sandboxAvailable();
if (!hasBwrap) console.warn('bubblewrap is not usable here: the shell sandbox attacks are SKIPPED (apt-get install bubblewrap).');

const tag = `loom-g5-${process.pid}`;
/** The real home folder: where a user's database or docker socket would be. */
const home = fs.realpathSync(os.homedir());
const homeSecret = path.join(home, `${tag}-secret.txt`);
const homeProject = path.join(home, `${tag}-project`);
const homeSocket = path.join(home, `${tag}.sock`);
const varSocket = path.join('/var/tmp', `${tag}.sock`);
const varFile = path.join('/var/tmp', `${tag}.txt`);
const runSocket = path.join('/run', `${tag}.sock`);
const abstractSocket = `\0${tag}`;
const escapeTarget = path.join('/usr/local', `${tag}-escaped`);

let root: string;
let project: string;
const servers: net.Server[] = [];
/** Connections each server accepted, by name: what a database would have seen. */
const accepted = new Map<string, number>();
let tcpPort: number;

async function listen(name: string, address: string | { port: number; host: string }): Promise<net.Server> {
  accepted.set(name, 0);
  const server = net.createServer((socket) => {
    accepted.set(name, (accepted.get(name) ?? 0) + 1);
    socket.end('hello from the host\n');
  });
  servers.push(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if (typeof address === 'string') server.listen(address, resolve);
    else server.listen(address.port, address.host, resolve);
  });
  return server;
}

beforeAll(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-g5-')));
  project = path.join(root, 'project');
  fs.mkdirSync(project);
  fs.writeFileSync(homeSecret, 'home secret\n');
  fs.writeFileSync(varFile, 'var secret\n');
  fs.mkdirSync(homeProject);
  fs.symlinkSync(homeSecret, path.join(project, 'link-to-home-secret'));
  await listen('home', homeSocket);
  await listen('var', varSocket);
  await listen('abstract', abstractSocket);
  // /run is root's: a test run by another user attacks the other three.
  if (process.getuid?.() === 0) await listen('run', runSocket);
  const tcp = await listen('tcp', { port: 0, host: '127.0.0.1' });
  tcpPort = (tcp.address() as net.AddressInfo).port;
});

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  for (const p of [homeSecret, homeSocket, varSocket, varFile, runSocket, escapeTarget]) fs.rmSync(p, { force: true });
  fs.rmSync(homeProject, { recursive: true, force: true });
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

const run = (command: string, extra: Partial<ShellOptions> = {}) => runShell(command, { cwd: project, timeoutMs: 30_000, ...extra });

/** A Node one-liner inside the command: connect, print what came back or the error code. */
function nodeConnect(address: string | number): string {
  const target = typeof address === 'number' ? `{port:${address},host:'127.0.0.1'}` : `{path:${JSON.stringify(address)}}`;
  const script = `require('net').connect(${target}).on('data',d=>process.stdout.write('GOT '+d)).on('error',e=>{console.log('ERR '+e.code);process.exitCode=1})`;
  return `node -e ${shellQuote(script)}`;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

describe.skipIf(!hasBwrap)('guarantee 5: the shell sandbox has no network and no way out', () => {
  it('cannot connect to Unix sockets under the home folder, /var or /run, nor to abstract ones', async () => {
    // The probe works when unconfined, so a failure below is the sandbox's doing.
    const unconfined = await run(nodeConnect(homeSocket), { sandbox: false });
    expect(unconfined.stdout).toContain('GOT hello from the host');
    accepted.set('home', 0);

    const probes = (
      [
        ['home', homeSocket],
        ['var', varSocket],
        ['run', runSocket],
        ['abstract', abstractSocket],
      ] as const
    ).filter(([name]) => accepted.has(name));
    for (const [name, address] of probes) {
      const r = await run(nodeConnect(address));
      expect(r.sandboxed).toBe(true);
      expect(r.stdout, name).not.toContain('GOT');
      expect(r.stdout, name).toMatch(/ERR (ENOENT|ECONNREFUSED)/);
      expect(accepted.get(name), name).toBe(0);
    }
  });

  it('cannot reach a TCP server on loopback or on the host address', async () => {
    const hostAddress = Object.values(os.networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
    const external = hostAddress ? await listen('external', { port: 0, host: hostAddress }) : null;
    const attempts = [
      nodeConnect(tcpPort),
      `exec 3<>/dev/tcp/127.0.0.1/${tcpPort} && cat <&3`,
      `curl -sS --max-time 5 http://127.0.0.1:${tcpPort}/`,
      ...(external ? [`exec 3<>/dev/tcp/${hostAddress}/${(external.address() as net.AddressInfo).port} && cat <&3`] : []),
    ];
    for (const command of attempts) {
      const r = await run(command);
      expect(r.exitCode, command).not.toBe(0);
      expect(r.stdout, command).not.toContain('hello from the host');
    }
    expect(accepted.get('tcp')).toBe(0);
    if (external) expect(accepted.get('external')).toBe(0);
  });

  it('sees nothing of the home folder or /var outside the project, not even through a symlink', async () => {
    const r = await run(`cat ${homeSecret}; cat link-to-home-secret; cat ${varFile}; ls -A ${home} /var; ls -A /var/tmp`);
    expect(r.stdout + r.stderr).not.toContain('secret\n');
    expect(r.stdout).not.toContain(path.basename(homeSecret));
    expect(r.stdout).not.toContain(path.basename(varFile));
    expect(r.stderr).toContain(`cat: ${homeSecret}: No such file or directory`);
    expect(r.stderr).toContain("ls: cannot access '/var/tmp': No such file or directory");
  });

  it('a project inside the home folder stays visible and writable while the rest of home is hidden', async () => {
    const r = await run(`echo built > out.txt && ls -A .. && cat ${homeSecret}`, { cwd: homeProject });
    expect(fs.readFileSync(path.join(homeProject, 'out.txt'), 'utf8')).toBe('built\n');
    const listed = r.stdout.trim().split('\n');
    expect(listed).toContain(path.basename(homeProject));
    expect(listed).not.toContain(path.basename(homeSecret));
    expect(r.stderr).toContain('No such file or directory');
  });

  it('has no capabilities, even when Loom runs as root', async () => {
    const r = await run('id -u; grep -E "^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):" /proc/self/status; capsh --print | grep -i "^Current"');
    const status = Object.fromEntries(
      r.stdout
        .split('\n')
        .filter((l) => l.includes(':\t'))
        .map((l) => l.split(':\t')),
    );
    if (process.getuid?.() === 0) expect(r.stdout.split('\n')[0]).toBe('0'); // the root case is the one exercised
    for (const field of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) expect(status[field], field).toBe('0000000000000000');
    expect(status.NoNewPrivs).toBe('1');
    expect(r.stdout).toMatch(/Current: =\s*$/m);
  });

  it('cannot remount the root read-write, escape through a new namespace, or write kernel settings', async () => {
    const attempts = [
      `mount -o remount,bind,rw / && echo REMOUNTED; echo pwned > ${escapeTarget}`,
      `mount -o remount,rw /usr && echo REMOUNTED; echo pwned > ${escapeTarget}`,
      `mount -t tmpfs none /usr/local && echo REMOUNTED`,
      `unshare -U -r -m sh -c 'mount -o remount,bind,rw / && echo REMOUNTED; echo pwned > ${escapeTarget}'`,
      // Writing back the current value: harmless even if it got through, but it must not.
      'cat /proc/sys/vm/swappiness > /proc/sys/vm/swappiness && echo SYSCTL-WRITTEN',
      'mkdir /sys/fs/cgroup/loom-g5 && echo CGROUP-MADE',
    ];
    for (const command of attempts) {
      const r = await run(command);
      expect(r.stdout, command).toBe('');
      // "No space left on device" is how the kernel refuses a user namespace over the limit (0 inside).
      expect(r.stderr, command).toMatch(/permission denied|Operation not permitted|Read-only file system|No such file|No space left on device/i);
    }
    expect(fs.existsSync(escapeTarget)).toBe(false);
    expect(fs.existsSync('/sys/fs/cgroup/loom-g5')).toBe(false);
  });

  it('cannot leave a setuid or setgid program in the project for someone to run later', async () => {
    const attempts = [
      'cp /bin/true s1 && chmod u+s s1',
      'cp /bin/true s2 && chmod 2755 s2',
      'install -m 4755 /bin/true s3',
      `node -e "require('fs').closeSync(require('fs').openSync('s4', 'w', 0o4755))"`,
      'cp /bin/true s5 && tar --mode=4755 -cf s5.tar s5 && rm s5 && tar -xpf s5.tar',
      'cp -p "$(find /usr/bin -perm -4000 -type f | head -n 1)" s6',
    ];
    for (const command of attempts) await run(command);
    const setId = fs.readdirSync(project).filter((name) => fs.statSync(path.join(project, name)).mode & 0o6000);
    expect(setId).toEqual([]);
    expect(fs.readdirSync(project)).toEqual(expect.arrayContaining(['s1', 's2', 's5']));
    // Ordinary permission changes still work.
    const plain = await run('chmod 755 s1 && chmod g+w s2 && echo changed');
    expect(plain.stdout).toBe('changed\n');
  });

  it('cannot write outside the project folder; what it writes in hidden folders is thrown away', async () => {
    const sibling = path.join(root, 'escaped.txt');
    const r = await run(`echo x > ${sibling}; echo x > /etc/${tag}; echo x > ${escapeTarget}; echo x > ${home}/${tag}-new; echo x > /var/${tag}; echo ok`);
    expect(r.stdout).toBe('ok\n');
    for (const p of [sibling, `/etc/${tag}`, escapeTarget, `${home}/${tag}-new`, `/var/${tag}`]) expect(fs.existsSync(p), p).toBe(false);
  });

  it('cannot see or signal the processes of the host', async () => {
    const r = await run(`kill -0 ${process.pid} && echo SIGNALLED; ps -e -o pid= | wc -l`);
    expect(r.stdout).not.toContain('SIGNALLED');
    expect(Number(r.stdout.trim())).toBeLessThan(10);
  });
});
