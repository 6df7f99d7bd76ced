/**
 * Talking to a hub (docs/DESIGN.md#sync-through-a-hub): open a `pg` client with the TLS
 * rule of hub-url.ts, turn every failure into one line that names the hub without its
 * password, and check the hub's schema before anything is written.
 */
import type { ConnectionOptions } from 'node:tls';
import pg from 'pg';
import { LoomError } from '../errors';
import { HUB_SCHEMA_VERSION } from './hub-schema';
import { type HubConfig, maskPassword } from './hub-url';
import { readPgpass } from './pgpass';

export { describeHub, parseHubUrl, type HubConfig } from './hub-url';

/** Why a hub call failed, in a few words: what a status line shows after "Hub unreachable (…)". */
export type HubFailure =
  'connection refused' | 'host not found' | 'timed out' | 'connection closed' | 'busy' | 'TLS' | 'password' | 'role' | 'schema' | 'refused' | 'other';

/** Failures that are waited out (retried later), not for the user to fix: the hub was away, or held up by another role's lock. */
const UNREACHABLE: ReadonlySet<HubFailure> = new Set(['connection refused', 'host not found', 'timed out', 'connection closed', 'busy']);

/** A hub failure: one line for the user, and its kind for status lines and retries. */
export class HubError extends LoomError {
  constructor(
    message: string,
    readonly failure: HubFailure,
  ) {
    super(message, 'hub');
    this.name = 'HubError';
  }

  /** The hub could not be reached (worth retrying later); not a refusal. */
  get unreachable(): boolean {
    return UNREACHABLE.has(this.failure);
  }
}

const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Bounds on every hub connection, so another role cannot make a sync wait forever: any
 * member may hold the shared clock's row lock (an open `UPDATE loom.clock`), and a
 * statement waits for a lock at most LOCK_TIMEOUT_MS, runs at most STATEMENT_TIMEOUT_MS,
 * and a transaction left idle is ended by the hub. The client's own QUERY_TIMEOUT_MS
 * ends the wait for a hub that stops answering at all. A legitimate push holds the clock
 * for one batch's transaction, far below these.
 */
const HUB_LOCK_TIMEOUT_MS = 10_000;
const STATEMENT_TIMEOUT_MS = 120_000;
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;
const QUERY_TIMEOUT_MS = STATEMENT_TIMEOUT_MS + 30_000;

/** Opens a client to the hub; a failure is a HubError whose line never holds the password. */
export async function connectHub(hub: HubConfig): Promise<pg.Client> {
  const client = new pg.Client({
    host: hub.host,
    port: hub.port,
    database: hub.database,
    ...(hub.user === undefined ? {} : { user: hub.user }),
    // A function, so pg never falls back to its own (deprecated) ~/.pgpass reading.
    password: () => Promise.resolve(hub.password ?? (process.env.PGPASSWORD || undefined) ?? readPgpass(hub) ?? ''),
    ssl: tlsOptions(hub),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    lock_timeout: HUB_LOCK_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    keepAlive: true,
    application_name: 'loom',
  });
  // A dropped connection is also emitted as an event; without a listener it would end the
  // process. The query in flight rejects on its own, and that is where it is reported.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw explainHubError(hub, err);
  }
  return client;
}

function tlsOptions(hub: HubConfig): false | ConnectionOptions {
  const ca = hub.ca === undefined ? {} : { ca: hub.ca };
  switch (hub.sslMode) {
    case 'disable':
      return false;
    case 'require':
      return { rejectUnauthorized: false };
    case 'verify-ca':
      return { rejectUnauthorized: true, ...ca, checkServerIdentity: () => undefined };
    case 'verify-full':
      return { rejectUnauthorized: true, ...ca };
  }
}

/**
 * Any error from a hub call as one HubError line. The message names the hub by its URL
 * without the password, and any trace of the password is masked besides.
 */
export function explainHubError(hub: HubConfig, err: unknown): HubError {
  if (err instanceof HubError) return err;
  const { failure, line } = describeFailure(hub, err);
  return new HubError(scrub(line, hub), failure);
}

function describeFailure(hub: HubConfig, err: unknown): { failure: HubFailure; line: string } {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  const role = hub.user ?? process.env.PGUSER ?? 'the default role';
  switch (code) {
    case 'ECONNREFUSED':
      return { failure: 'connection refused', line: `Hub unreachable at ${hub.url} (connection refused).` };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { failure: 'host not found', line: `Hub unreachable at ${hub.url} (host ${hub.host} not found).` };
    case 'ETIMEDOUT':
      return { failure: 'timed out', line: `Hub unreachable at ${hub.url} (timed out).` };
    case 'ECONNRESET':
    case 'EPIPE':
    case '57P01':
    case '57P02':
    case '57P03':
      return { failure: 'connection closed', line: `Hub unreachable at ${hub.url} (the connection was closed).` };
    case '55P03':
      return {
        failure: 'busy',
        line: `The hub at ${hub.url} is busy: another connection held a lock Loom needs for more than ${HUB_LOCK_TIMEOUT_MS / 1000} s; this attempt changed nothing there, and what is queued stays queued.`,
      };
    case '57014':
      return { failure: 'timed out', line: `The hub at ${hub.url} took too long to answer (a statement ran past ${STATEMENT_TIMEOUT_MS / 1000} s).` };
    case '28P01':
      return { failure: 'password', line: `The hub at ${hub.url} refused the password for role ${role}.` };
    case '28000':
      return { failure: 'role', line: `The hub at ${hub.url} does not let role ${role} connect from here (its pg_hba.conf has no entry for it).` };
    case '3D000':
      return { failure: 'refused', line: `The hub at ${hub.url} has no database ${hub.database}.` };
    case '42501':
      return { failure: 'refused', line: `The hub at ${hub.url} refused role ${role}: ${message}.` };
  }
  if (typeof code === 'string' && /CERT|SSL|TLS|UNABLE_TO_|HOSTNAME/.test(code)) {
    return { failure: 'TLS', line: `The hub at ${hub.url} failed the TLS check (${message}); Loom checks its certificate and name (sslmode=verify-full).` };
  }
  if (/does not support SSL/i.test(message)) return { failure: 'TLS', line: `The hub at ${hub.url} does not offer TLS, which Loom needs for it.` };
  if (/timeout/i.test(message)) return { failure: 'timed out', line: `Hub unreachable at ${hub.url} (timed out).` };
  if (/Connection terminated|not queryable|ended/i.test(message)) {
    return { failure: 'connection closed', line: `Hub unreachable at ${hub.url} (the connection was closed).` };
  }
  return { failure: 'other', line: `The hub at ${hub.url} failed: ${message}` };
}

function scrub(line: string, hub: HubConfig): string {
  const masked = maskPassword(line);
  const secrets = [hub.password, process.env.PGPASSWORD].filter((s): s is string => Boolean(s));
  return secrets.reduce((text, secret) => text.split(secret).join('***'), masked);
}

interface HubSchemaFacts {
  schema: boolean;
  role: string;
  superuser: boolean;
  loomUser: boolean;
}

/**
 * Before a sync writes anything: the hub has Loom's schema at a version this Loom knows,
 * and the role is a Loom user (not a superuser, whom row-level security does not bind).
 * Gives the hub's id and schema version; throws a HubError line otherwise.
 */
export async function checkHubSchema(client: pg.Client): Promise<{ hubId: string; version: number }> {
  const url = clientUrl(client);
  const facts = await queryOne<HubSchemaFacts>(
    client,
    `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'loom') AS schema,
            current_user AS role,
            COALESCE((SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user), false) AS superuser,
            EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'loom_user') AND pg_has_role('loom_user', 'USAGE') AS "loomUser"`,
  );
  if (!facts.schema) throw noSchemaError(url);
  if (facts.superuser) {
    throw new HubError(`Role ${facts.role} is a superuser on the hub at ${url}, which row-level security does not bind: sync as a Loom user role.`, 'role');
  }
  if (!facts.loomUser) {
    throw new HubError(`Role ${facts.role} is not a Loom user on the hub at ${url}: its owner adds it with GRANT loom_user TO ${facts.role};`, 'role');
  }
  return readHubVersion(client, url);
}

/** The hub's id and schema version, refused when this Loom cannot use it (newer, older or none). */
export async function readHubVersion(client: pg.Client, url = clientUrl(client)): Promise<{ hubId: string; version: number }> {
  const { schema } = await queryOne<{ schema: boolean }>(client, `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'loom') AS schema`);
  if (!schema) throw noSchemaError(url);
  const meta = await client.query<{ key: string; value: string }>(`SELECT key, value FROM loom.hub_meta WHERE key IN ('schema_version', 'hub_id')`);
  const value = (key: string) => meta.rows.find((row) => row.key === key)?.value;
  const version = Number(value('schema_version') ?? 0);
  if (version > HUB_SCHEMA_VERSION) throw newerSchemaError(url, version);
  const hubId = value('hub_id');
  if (version < HUB_SCHEMA_VERSION || hubId === undefined) {
    throw new HubError(`The hub at ${url} has schema version ${version}; run loom --hub-init ${url} to bring it to version ${HUB_SCHEMA_VERSION}.`, 'schema');
  }
  return { hubId, version };
}

/**
 * The row a query always gives (a SELECT of expressions, the clock row, a row just
 * written); a hub without it has a damaged schema, said as such rather than crashing.
 */
export async function queryOne<T extends pg.QueryResultRow>(client: pg.Client, sql: string, values?: unknown[]): Promise<T> {
  const { rows } = await client.query<T>(sql, values);
  const [row] = rows;
  if (row === undefined) throw new HubError(`The hub at ${clientUrl(client)} is missing a row its Loom schema always has; its schema is damaged.`, 'schema');
  return row;
}

function noSchemaError(url: string): HubError {
  return new HubError(`The hub at ${url} has no Loom schema yet: run loom --hub-init ${url} as its owner.`, 'schema');
}

export function newerSchemaError(url: string, version: number): HubError {
  return new HubError(`The hub at ${url} has schema version ${version}; this Loom supports up to ${HUB_SCHEMA_VERSION}. Update Loom.`, 'schema');
}

/** The URL of the hub a client is connected to, without a password (pg keeps the parts). */
function clientUrl(client: pg.Client): string {
  const database = encodeURIComponent(client.database ?? '');
  if (client.host.startsWith('/')) return `postgres:///${database}?host=${encodeURIComponent(client.host)}`;
  const user = client.user ? `${encodeURIComponent(client.user)}@` : '';
  return `postgres://${user}${client.host.includes(':') ? `[${client.host}]` : client.host}:${client.port}/${database}`;
}
