/**
 * `loom --hub-add-member URL TEAM ROLE` (docs/DESIGN.md#who-may-read-what-roles-and-row-level-security):
 * the hub's owner puts a Loom user in a team, which lets the user read the sessions shared
 * with it (the hub's trigger moves them past the user's cursor). The same as the owner's
 * `INSERT INTO loom.team_members`, with the checks a typo deserves.
 */
import { connectHub, explainHubError, HubError, queryOne, readHubVersion } from './hub-connection';
import { LOOM_USER_ROLE } from './hub-init';
import type { HubConfig } from './hub-url';

export async function addTeamMember(hub: HubConfig, team: string, member: string): Promise<{ added: boolean }> {
  const client = await connectHub(hub);
  try {
    await readHubVersion(client, hub.url);
    const { exists, loomUser } = await queryOne<{ exists: boolean; loomUser: boolean }>(
      client,
      `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = $1) AS exists,
              EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = $1) AND pg_has_role($1, $2, 'USAGE') AS "loomUser"`,
      [member, LOOM_USER_ROLE],
    );
    if (!loomUser) {
      const create = exists ? `GRANT ${LOOM_USER_ROLE} TO ${member};` : `CREATE ROLE ${member} LOGIN PASSWORD '…' IN ROLE ${LOOM_USER_ROLE};`;
      throw new HubError(`Role ${member} is not a Loom user on the hub at ${hub.url}; make it one first: ${create}`, 'role');
    }
    const inserted = await client.query(`INSERT INTO loom.team_members (team, member) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [team, member]);
    return { added: inserted.rowCount === 1 };
  } catch (err) {
    throw explainHubError(hub, err);
  } finally {
    await client.end().catch(() => undefined);
  }
}
