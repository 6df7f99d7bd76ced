/**
 * Team search (docs/DESIGN.md#team-search): PostgreSQL full-text search on the hub over
 * every session the role may read — its own and those shared with its teams. Messages
 * match through `bodies.search` (GIN), titles through the title index; one hit per
 * session, its best match, ranked with ts_rank (a title match first), the snippet cut
 * like the local search's. The matching is the hub's loom.team_search (hub-schema.ts).
 */
import { snippetOf, MATCH_CLOSE, MATCH_OPEN } from '../store/snippet';
import { LoomError } from '../errors';
import { checkHubSchema, connectHub, explainHubError } from './hub-connection';
import type { HubConfig } from './hub-url';

export interface HubSearchHit {
  sessionId: string;
  title: string | null;
  /** The hub role that owns the session. */
  owner: string;
  snippet: string;
  rank: number;
  /** ISO time of the session's last change, as its device recorded it. */
  updatedAt: string;
}

export interface HubSearchOptions {
  limit: number;
  offset?: number;
  /** Archived sessions too (deleted ones never). */
  includeArchived?: boolean;
}

const SNIPPET_WORDS = 16;
/** The whole message highlighted with the local search's marks; snippetOf cuts it. */
const HEADLINE_OPTIONS = `HighlightAll=true, StartSel=${MATCH_OPEN}, StopSel=${MATCH_CLOSE}`;
/**
 * The matching runs in loom.team_search (hub-schema.ts: why it is a function); the
 * snippet's text is read here, as the caller, under row-level security.
 */
const SEARCH_SQL = `
SELECT t.id, t.title, t.owner, t.updated_at, t.rank,
       CASE WHEN b.hash IS NULL THEN NULL
            ELSE ts_headline('english', coalesce(b.body->>'content', '') || ' ' || coalesce(b.body->>'tool_text', ''), websearch_to_tsquery('english', $1), $5)
       END AS highlighted, t.capped
  FROM loom.team_search(current_user, $1, $2, $3, $4, $6) t
  LEFT JOIN loom.bodies b ON b.owner = t.body_owner AND b.hash = t.body_hash
 ORDER BY t.rank DESC, t.body_hash, t.body_owner, t.id`;

interface SearchRow {
  id: string;
  title: string | null;
  owner: string;
  updated_at: string;
  rank: number;
  highlighted: string | null;
  capped: boolean;
}

/**
 * How many best-ranked matching messages a search joins to their sessions first
 * (loom.team_search): enough for a page in nearly every search, few enough that a word in
 * every session costs little more than ranking its matches. Each retry reads 4× more.
 */
const RANKED_MESSAGES_PER_HIT = 10;
const MIN_RANKED_MESSAGES = 200;
const CAP_GROWTH = 4;

export async function searchHub(hub: HubConfig, query: string, options: HubSearchOptions): Promise<HubSearchHit[]> {
  if (!query.trim()) throw new LoomError('A team search needs some words to look for.', 'usage');
  const client = await connectHub(hub);
  try {
    await checkHubSchema(client);
    const offset = options.offset ?? 0;
    const search = (cap: number | null) =>
      client.query<SearchRow>(SEARCH_SQL, [query, options.limit, offset, options.includeArchived ?? false, HEADLINE_OPTIONS, cap]);
    let cap: number | null = Math.max(MIN_RANKED_MESSAGES, (offset + options.limit) * RANKED_MESSAGES_PER_HIT);
    let { rows } = await search(cap);
    // A short page is complete only when every match was ranked: else read more. A page of none says nothing of the cap: rank all.
    while (cap !== null && rows.length < options.limit && rows.every((row) => row.capped)) {
      cap = rows.length ? cap * CAP_GROWTH : null;
      ({ rows } = await search(cap));
    }
    return rows.map(toHit);
  } catch (err) {
    throw explainHubError(hub, err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function toHit(row: SearchRow): HubSearchHit {
  return {
    sessionId: row.id,
    title: row.title,
    owner: row.owner,
    snippet: row.highlighted === null ? '' : snippetOf(row.highlighted, SNIPPET_WORDS),
    rank: Number(row.rank),
    updatedAt: row.updated_at,
  };
}
