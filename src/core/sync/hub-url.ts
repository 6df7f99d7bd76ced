/**
 * A hub URL read and checked without touching the network (docs/DESIGN.md#sync-through-a-hub):
 * `postgres://[user[:password]@]host[:port]/database[?sslmode=…&sslrootcert=…&host=/socket/dir]`.
 * The TLS rule is decided here: any host that is not loopback (127.0.0.0/8, ::1,
 * localhost, a Unix socket) needs TLS with the server's certificate and name checked
 * (`sslmode=verify-full`, the default there); a URL asking for less is refused.
 * No module here loads `pg`, so a command that only names a hub stays light.
 */
import fs from 'node:fs';
import { LoomError } from '../errors';

export type SslMode = 'disable' | 'require' | 'verify-ca' | 'verify-full';

export interface HubConfig {
  /** The URL without its password: the hub's identity (sync_state) and what messages show. */
  readonly url: string;
  /** Host (or socket folder), port and database: `127.0.0.1:5433/loom`. */
  readonly address: string;
  readonly host: string;
  readonly port: number;
  readonly database: string;
  /** Undefined: pg's own defaults (PGUSER, then the OS user). */
  readonly user?: string;
  /** Undefined: PGPASSWORD, then ~/.pgpass, as psql does. Never shown. */
  readonly password?: string;
  readonly sslMode: SslMode;
  /** PEM of the CA to trust (sslrootcert), else the system's. */
  readonly ca?: string;
}

const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
const KNOWN_PARAMS = new Set(['sslmode', 'sslrootcert', 'host']);
const DEFAULT_PORT = 5432;

export class HubUrlError extends LoomError {
  constructor(message: string) {
    super(message, 'hub_url');
  }
}

/** Loopback and Unix sockets may go without TLS; every other host may not. */
function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare.startsWith('/') || bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** Reads a hub URL; throws HubUrlError (one line, password masked) when it is unusable. */
export function parseHubUrl(raw: string): HubConfig {
  const text = raw.trim();
  const shown = maskPassword(text);
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (!passwordReadAsTyped(text, url)) {
    throw new HubUrlError(
      `The hub URL ${shown} has a password with a /, ?, # or @ that is not percent-encoded (%2F, %3F, %23, %40); encode it, or leave it out and set PGPASSWORD or ~/.pgpass.`,
    );
  }
  if (!url || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')) {
    throw new HubUrlError(`The hub URL must look like postgres://user@host:5432/database, got '${shown}'.`);
  }
  const unknown = [...url.searchParams.keys()].find((key) => !KNOWN_PARAMS.has(key));
  if (unknown) throw new HubUrlError(`The hub URL ${shown} has a parameter Loom does not use: '${unknown}' (known: sslmode, sslrootcert, host).`);
  const host = url.searchParams.get('host') ?? decoded(url.hostname);
  if (!host) throw new HubUrlError(`The hub URL ${shown} names no host.`);
  const database = decoded(url.pathname.replace(/^\//, ''));
  if (!database || database.includes('/')) throw new HubUrlError(`The hub URL ${shown} must name one database, as in postgres://host/loom.`);
  const port = url.port ? Number(url.port) : DEFAULT_PORT;
  const sslMode = tlsMode(url.searchParams.get('sslmode'), host, shown);
  const rootCert = url.searchParams.get('sslrootcert');
  const user = url.username ? decoded(url.username) : undefined;
  const password = url.password ? decoded(url.password) : undefined;
  const address = `${host.includes(':') && !host.startsWith('/') ? `[${host}]` : host}${port === DEFAULT_PORT ? '' : `:${port}`}/${database}`;
  return {
    url: withoutPassword(url),
    address,
    host: host.replace(/^\[|\]$/g, ''),
    port,
    database,
    ...(user === undefined ? {} : { user }),
    ...(password === undefined ? {} : { password }),
    sslMode,
    ...(rootCert ? { ca: readRootCert(rootCert, shown) } : {}),
  };
}

/** `127.0.0.1:5433/loom`: the hub as status lines name it, no user, no password. */
export function describeHub(hub: HubConfig): string {
  return hub.address;
}

/**
 * What follows `scheme://user:` up to the last `@`: the password as a user meant it, even
 * one with an unencoded /, ?, # or @ (which a URL parser would split elsewhere).
 */
const PASSWORD = /^([a-z][a-z0-9+.-]*:\/\/[^:/@?#]*:)([^]*)@/i;

/** Replaces a URL's password with ***, whatever characters it holds; anything that is not a URL is returned as is. */
export function maskPassword(text: string): string {
  return text.replace(PASSWORD, '$1***@');
}

/** A URL parser would split an unencoded /, ? or # elsewhere: the rest of the password would leak into the host, path or a parameter. */
function passwordReadAsTyped(text: string, url: URL | undefined): boolean {
  const typed = passwordOf(text);
  return typed === undefined || (url !== undefined && decoded(url.password) === typed);
}

/** The password as maskPassword sees it, decoded; undefined when there is none. */
function passwordOf(text: string): string | undefined {
  const raw = PASSWORD.exec(text)?.[2];
  return raw ? decoded(raw) : undefined;
}

/** Percent-decoded; a malformed escape (`%zz`) is kept as typed, as libpq would not read it either. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function withoutPassword(url: URL): string {
  const copy = new URL(url.href);
  copy.password = '';
  return copy.href;
}

function tlsMode(asked: string | null, host: string, shown: string): SslMode {
  const loopback = isLoopbackHost(host);
  if (asked === null) return loopback ? 'disable' : 'verify-full';
  const mode = SSL_MODES.find((m) => m === asked);
  if (!mode) throw new HubUrlError(`The hub URL ${shown} has sslmode=${asked}; use one of ${SSL_MODES.join(', ')}.`);
  if (mode === 'verify-full') return mode;
  if (!loopback) {
    throw new HubUrlError(
      `The hub at ${shown} is not on this machine, so Loom needs TLS with its certificate checked: use sslmode=verify-full (the default), not sslmode=${mode}.`,
    );
  }
  // On loopback, allow and prefer connect as plain as libpq would against a server without TLS.
  return mode === 'allow' || mode === 'prefer' ? 'disable' : mode;
}

function readRootCert(file: string, shown: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    throw new HubUrlError(`The hub URL ${shown} names sslrootcert=${file}, which cannot be read.`);
  }
}
