/**
 * `loom --hub-init URL` (docs/DESIGN.md#sync-through-a-hub): creates the hub's schema, or
 * brings it to HUB_SCHEMA_VERSION, as the role in the URL (the hub's owner). One
 * transaction: it all lands or nothing does. A hub already newer than this Loom is left
 * untouched with one line.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { connectHub, explainHubError, HubError, newerSchemaError, queryOne } from './hub-connection';
import { HUB_MIGRATIONS, HUB_SCHEMA_VERSION } from './hub-schema';
import type { HubConfig } from './hub-url';

/** The NOLOGIN group role every Loom user is a member of; its grants and policies are the hub's. */
export const LOOM_USER_ROLE = 'loom_user';

export async function initHub(hub: HubConfig): Promise<{ from: number; to: number }> {
  const client = await connectHub(hub);
  try {
    await refuseLoomUser(client, hub);
    await ensureGroupRole(client);
    return await migrate(client, hub).catch((err: unknown) => {
      // Two inits at once: the second's CREATE SCHEMA waits for the first, then collides
      // with it (IF NOT EXISTS is no lock). Run again, it finds the work done.
      if ((err as { code?: unknown }).code === '23505') return migrate(client, hub);
      throw err;
    });
  } catch (err) {
    throw explainHubError(hub, err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The owner's policies let it read every row (it administers the hub), so the role that
 * inits must not be a Loom user too: its sessions would not be private to the policies.
 */
async function refuseLoomUser(client: pg.Client, hub: HubConfig): Promise<void> {
  const { role, member } = await queryOne<{ role: string; member: boolean }>(
    client,
    `SELECT current_user AS role,
            EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = $1)
              AND NOT COALESCE((SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user), false)
              AND pg_has_role($1, 'USAGE') AS member`,
    [LOOM_USER_ROLE],
  );
  if (member) {
    throw new HubError(`Role ${role} is a Loom user (in ${LOOM_USER_ROLE}); run loom --hub-init ${hub.url} as the hub's owner role instead.`, 'role');
  }
}

/** Roles belong to the whole cluster, not the database, and CREATE ROLE cannot say IF NOT EXISTS. */
async function ensureGroupRole(client: pg.Client): Promise<void> {
  const { rowCount } = await client.query(`SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = $1`, [LOOM_USER_ROLE]);
  if (rowCount) return;
  try {
    await client.query(`CREATE ROLE ${LOOM_USER_ROLE} NOLOGIN`);
  } catch (err) {
    // Another init made it in the meantime: what this one wanted.
    if ((err as { code?: unknown }).code === '42710') return;
    if ((err as { code?: unknown }).code === '42501') {
      throw new HubError(
        `Role ${client.user ?? ''} may not create the role ${LOOM_USER_ROLE}: run loom --hub-init as a role with CREATEROLE (the hub's owner).`,
        'role',
      );
    }
    throw err;
  }
}

async function migrate(client: pg.Client, hub: HubConfig): Promise<{ from: number; to: number }> {
  await client.query('BEGIN');
  try {
    await client.query('CREATE SCHEMA IF NOT EXISTS loom');
    await client.query('CREATE TABLE IF NOT EXISTS loom.hub_meta (key text PRIMARY KEY, value text NOT NULL)');
    await client.query(`INSERT INTO loom.hub_meta (key, value) VALUES ('schema_version', '0') ON CONFLICT (key) DO NOTHING`);
    // The row lock makes a second init wait for this one, then find the work done.
    const { value } = await queryOne<{ value: string }>(client, `SELECT value FROM loom.hub_meta WHERE key = 'schema_version' FOR UPDATE`);
    const from = Number(value);
    if (from > HUB_SCHEMA_VERSION) throw newerSchemaError(hub.url, from);
    for (const migration of HUB_MIGRATIONS.filter((m) => m.version > from)) {
      for (const statement of migration.statements) await client.query(statement);
    }
    await client.query(`UPDATE loom.hub_meta SET value = $1 WHERE key = 'schema_version'`, [String(HUB_SCHEMA_VERSION)]);
    await client.query(`INSERT INTO loom.hub_meta (key, value) VALUES ('hub_id', $1) ON CONFLICT (key) DO NOTHING`, [randomUUID()]);
    await client.query('COMMIT');
    return { from, to: HUB_SCHEMA_VERSION };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
