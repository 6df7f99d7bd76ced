/**
 * A throw-away PostgreSQL cluster for one test file (docs/DESIGN.md#sync-through-a-hub):
 * `initdb` + `pg_ctl` from Debian's package (the newest /usr/lib/postgresql/<n>/bin, not
 * PATH), run as the `postgres` user when the tests run as root, its data folder and Unix
 * socket in a temp folder, listening on 127.0.0.1 only, on a free port. `pg_ctl start -w`
 * returns once the server accepts connections, so there is no sleep anywhere.
 *
 * Roles: `postgres` (the superuser, reached through the socket without a password),
 * `hub_owner` (owns the `loom` database: what `loom --hub-init` runs as) and the users a
 * test adds with `createUser` (LOGIN, a password, member of `loom_user` once the hub
 * schema exists). TCP connections need a password (scram-sha-256).
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { nth } from './elements';

const run = promisify(execFile);

export const HUB_OWNER = 'hub_owner';
export const HUB_OWNER_PASSWORD = 'owner-pw-3f9c';
export const HUB_DATABASE = 'loom';
/** The `postgres` superuser's password over TCP (through the socket it needs none). */
export const SUPERUSER_PASSWORD = 'superuser-pw-9d2e';

export interface PsqlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface TestCluster {
  readonly port: number;
  /** With `tls`: the PEM of the CA that signed the server's certificate (for the name `localhost` only). */
  readonly caFile?: string;
  /** The folder holding the data directory, the socket and the server log. */
  readonly dir: string;
  /** A postgres:// URL for `role` over TCP to 127.0.0.1 (the password in it when given). */
  url(role: string, password?: string, database?: string): string;
  /** The hub owner's URL: what `loom --hub-init` is given. */
  readonly ownerUrl: string;
  /** Runs SQL as the superuser through the socket, in the hub's database unless told otherwise (setting up what a test needs). */
  admin(sql: string, values?: unknown[], database?: string): Promise<pg.QueryResult>;
  /** A LOGIN role with a password; in loom_user unless `loomUser` is false (loom_user must exist: run initHub first). */
  createUser(name: string, password: string, options?: { loomUser?: boolean }): Promise<void>;
  /** `psql` as `role` over TCP, one script, stopping at the first error; unaligned, tuples only. */
  psql(role: string, password: string, sql: string): Promise<PsqlResult>;
  /** `pg_ctl stop -m immediate`: the hub goes away as if it crashed. */
  stop(): Promise<void>;
  /** Starts the stopped cluster again on the same port. */
  start(): Promise<void>;
  /** Stops the cluster and removes its folder. */
  destroy(): Promise<void>;
}

/** The newest installed PostgreSQL's bin folder; a clear error when there is none. */
export function postgresBinDir(): string {
  const base = '/usr/lib/postgresql';
  const versions = fs.existsSync(base)
    ? fs
        .readdirSync(base)
        .filter((name) => /^\d+$/.test(name) && fs.existsSync(path.join(base, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions.length) {
    throw new Error(
      'PostgreSQL is not installed: the hub tests need initdb and pg_ctl from /usr/lib/postgresql/<version>/bin. Install it: apt-get install postgresql',
    );
  }
  return path.join(base, nth(versions, 0), 'bin');
}

const isRoot = () => process.getuid?.() === 0;

/** Runs a server program as the `postgres` user when we are root (PostgreSQL refuses root), else as ourselves. */
function asServerUser(bin: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  return isRoot() ? run('runuser', ['-u', 'postgres', '--', bin, ...args]) : run(bin, args);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * A CA and a server certificate it signs for `localhost` (not 127.0.0.1, so a client
 * checking the host name can be caught connecting by address). Returns the settings.
 */
async function makeCertificates(dir: string): Promise<{ settings: string[]; caFile: string }> {
  const file = (name: string) => path.join(dir, name);
  const openssl = (args: string[]) => run('openssl', args);
  await openssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=Loom test CA',
  ]);
  await openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=localhost']);
  fs.writeFileSync(file('san.ext'), 'subjectAltName=DNS:localhost\n');
  const sign = ['x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-days', '2'];
  await openssl([...sign, '-out', file('server.crt'), '-extfile', file('san.ext')]);
  fs.chmodSync(file('server.key'), 0o600);
  return { caFile: file('ca.pem'), settings: ['ssl = on', `ssl_cert_file = '${file('server.crt')}'`, `ssl_key_file = '${file('server.key')}'`] };
}

/** Makes a cluster and starts it: call in beforeAll, and `destroy()` in afterAll. `tls`: the server offers TLS too. */
export async function startTestCluster(options: { tls?: boolean } = {}): Promise<TestCluster> {
  const bin = postgresBinDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-pg-'));
  const dataDir = path.join(dir, 'data');
  const socketDir = path.join(dir, 'socket');
  const logFile = path.join(dir, 'server.log');
  fs.mkdirSync(socketDir);
  fs.writeFileSync(path.join(dir, 'pwfile'), `${SUPERUSER_PASSWORD}\n`);
  const tls = options.tls ? await makeCertificates(dir) : undefined;
  if (isRoot()) {
    fs.chmodSync(dir, 0o755);
    execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  }
  await asServerUser(path.join(bin, 'initdb'), [
    '-D',
    dataDir,
    '-U',
    'postgres',
    '--pwfile',
    path.join(dir, 'pwfile'),
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '-E',
    'UTF8',
    '--no-locale',
    '--no-sync',
  ]);
  // Durability is not what these tests check; the settings make a throw-away cluster fast.
  const settings = [
    `listen_addresses = '127.0.0.1'`,
    `unix_socket_directories = '${socketDir}'`,
    'fsync = off',
    'synchronous_commit = off',
    'full_page_writes = off',
    'max_connections = 100',
    ...(tls?.settings ?? []),
  ];
  fs.appendFileSync(path.join(dataDir, 'postgresql.conf'), `\n${settings.join('\n')}\n`);

  let port = 0;
  const start = async () => {
    await asServerUser(path.join(bin, 'pg_ctl'), ['start', '-w', '-t', '120', '-D', dataDir, '-l', logFile, '-o', `-p ${port}`]).catch((err: Error) => {
      throw new Error(`PostgreSQL did not start: ${err.message}\n${fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''}`);
    });
  };
  const stop = async () => {
    await asServerUser(path.join(bin, 'pg_ctl'), ['stop', '-m', 'immediate', '-w', '-D', dataDir]);
  };
  // A port found free may be taken before the server binds it (tests start clusters in parallel): then another.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      await start();
      break;
    } catch (err) {
      if (attempt === 3 || !/could not bind|already in use/i.test(String(err))) throw err;
      fs.rmSync(logFile, { force: true });
    }
  }

  const admin = async (sql: string, values?: unknown[], database = HUB_DATABASE) => {
    const client = new pg.Client({ host: socketDir, port, user: 'postgres', database });
    await client.connect();
    try {
      return await client.query(sql, values);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE ROLE ${HUB_OWNER} LOGIN CREATEROLE PASSWORD '${HUB_OWNER_PASSWORD}'`, [], 'postgres');
  await admin(`CREATE DATABASE ${HUB_DATABASE} OWNER ${HUB_OWNER}`, [], 'postgres');

  const url = (role: string, password?: string, database = HUB_DATABASE) =>
    `postgres://${encodeURIComponent(role)}${password === undefined ? '' : `:${encodeURIComponent(password)}`}@127.0.0.1:${port}/${database}`;

  return {
    port,
    ...(tls ? { caFile: tls.caFile } : {}),
    dir,
    url,
    ownerUrl: url(HUB_OWNER, HUB_OWNER_PASSWORD),
    admin,
    async createUser(name, password, options = {}) {
      await admin(`CREATE ROLE ${name} LOGIN PASSWORD '${password.replace(/'/g, "''")}'${options.loomUser === false ? '' : ' IN ROLE loom_user'}`);
    },
    async psql(role, password, sql) {
      const args = ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', String(port), '-U', role, '-d', HUB_DATABASE, '-c', sql];
      try {
        const { stdout, stderr } = await run(path.join(bin, 'psql'), args, { env: { PATH: process.env.PATH ?? '', PGPASSWORD: password } });
        return { code: 0, stdout, stderr };
      } catch (err) {
        const failed = err as { code?: number; stdout?: string; stderr?: string };
        return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
      }
    },
    stop,
    start,
    async destroy() {
      await stop().catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
