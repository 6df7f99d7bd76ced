/**
 * The hub commands (docs/DESIGN.md#sync-through-a-hub): `loom --hub-init URL` and
 * `loom --search QUERY --hub [URL]`. Loaded only for them, so `pg` stays out of every
 * other command. Failures are HubErrors: one line, the password never in it (exit 1).
 */
import { initHub } from '../core/sync/hub-init';
import { HUB_SCHEMA_VERSION } from '../core/sync/hub-schema';
import { addTeamMember } from '../core/sync/hub-teams';
import { describeHub } from '../core/sync/hub-url';
import { searchHub, type HubSearchHit } from '../core/sync/team-search';
import { oneLine, relativeTime, renderTable, truncate, type Column } from './format';
import type { HubAction } from './options';
import { terminalWidth, writeOut } from './output';

/** As many hits as the local --search shows at most. */
const SEARCH_LIMIT = 50;

export async function runHubCommand(action: HubAction): Promise<number> {
  const text = await hubCommandText(action);
  await writeOut(`${text}\n`);
  return 0;
}

function hubCommandText(action: HubAction): Promise<string> {
  switch (action.kind) {
    case 'hub-init':
      return hubInit(action.hub);
    case 'hub-add-member':
      return addMember(action);
    case 'hub-search':
      return hubSearch(action);
  }
}

async function addMember({ hub, team, member }: Extract<HubAction, { kind: 'hub-add-member' }>): Promise<string> {
  const { added } = await addTeamMember(hub, team, member);
  const where = `on the hub ${describeHub(hub)}`;
  return added ? `Added ${member} to team ${team} ${where}; they now read the sessions shared with it.` : `${member} is already in team ${team} ${where}.`;
}

async function hubInit(hub: Parameters<typeof initHub>[0]): Promise<string> {
  const { from, to } = await initHub(hub);
  const where = `hub ${describeHub(hub)}`;
  if (from === to) return `The ${where} is already at schema version ${HUB_SCHEMA_VERSION}; nothing to do.`;
  if (from === 0) return `Created Loom's schema (version ${to}) on the ${where}. Add users with: CREATE ROLE name LOGIN PASSWORD '…' IN ROLE loom_user;`;
  return `Upgraded the ${where} from schema version ${from} to ${to}.`;
}

async function hubSearch(action: Extract<HubAction, { kind: 'hub-search' }>): Promise<string> {
  const hits = await searchHub(action.hub, action.query, { limit: SEARCH_LIMIT, includeArchived: action.includeArchived });
  if (action.json) return JSON.stringify(hits.map(jsonHit), null, 2);
  if (!hits.length) return `No sessions on the hub ${describeHub(action.hub)} match "${action.query}".`;
  return hitTable(hits).join('\n');
}

/** The stable `--json` shape of a team search hit, in the local search's snake case. */
function jsonHit(hit: HubSearchHit) {
  return { id: hit.sessionId, title: hit.title, owner: hit.owner, updated_at: hit.updatedAt, snippet: hit.snippet };
}

const HIT_COLUMNS: Column[] = [{ header: 'ID' }, { header: 'TITLE', flex: true }, { header: 'OWNER' }, { header: 'UPDATED' }];

/** Like the local --search: one row per session, its snippet under it. Full ids: these sessions may not be on this device. */
function hitTable(hits: HubSearchHit[]): string[] {
  const now = new Date();
  const width = terminalWidth();
  const rows = hits.map((hit) => [hit.sessionId, hit.title?.trim() || '(untitled)', hit.owner, relativeTime(hit.updatedAt, now)]);
  const [header, ...lines] = renderTable(HIT_COLUMNS, rows, width);
  const snippet = (hit: HubSearchHit) => {
    const text = `    ${oneLine(hit.snippet)}`;
    return width === undefined ? text : truncate(text, width);
  };
  return [
    header,
    ...lines.flatMap((line, i) => {
      const hit = hits[i]; // the table has a line for each hit
      return hit?.snippet ? [line, snippet(hit)] : [line];
    }),
  ];
}
