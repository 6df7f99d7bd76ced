/**
 * Team search (docs/DESIGN.md#sync-through-a-hub): PostgreSQL full-text search on the hub
 * over every session the role may read — its own and those shared with its teams; the
 * hub's row-level security decides, this query asks for nothing more. Messages match
 * through `bodies.search` (GIN), titles through the title index; one hit per session, its
 * best match, ranked with ts_rank (a title match first), the snippet cut like the local
 * search's.
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
/** A title match outranks any message match (ts_rank stays below 1 for these weights). */
const TITLE_BONUS = 1;

const TITLE_VECTOR = `to_tsvector('english', coalesce(s.title, ''))`;
const BODY_TEXT = `coalesce(b.body->>'content', '') || ' ' || coalesce(b.body->>'tool_text', '')`;

/**
 * The best match of each readable session, ranked, one page of them; the headline (the
 * costly part) is made for that page only.
 */
const SEARCH_SQL = `
WITH q AS (SELECT websearch_to_tsquery('english', $1) AS query),
hits AS (
  SELECT e.session_id, b.owner AS body_owner, b.hash, ts_rank(b.search, q.query) AS rank
    FROM q, loom.bodies b JOIN loom.entries e ON e.owner = b.owner AND e.body_hash = b.hash
   WHERE b.search @@ q.query
  UNION ALL
  SELECT s.id, NULL, NULL, ts_rank(${TITLE_VECTOR}, q.query) + ${TITLE_BONUS}
    FROM q, loom.sessions s
   WHERE ${TITLE_VECTOR} @@ q.query
),
best AS (
  SELECT DISTINCT ON (session_id) session_id, body_owner, hash, rank FROM hits ORDER BY session_id, rank DESC
),
page AS (
  SELECT s.id, s.title, s.owner, coalesce(s.state->>'updated_at', s.created_at) AS updated_at, best.rank, best.body_owner, best.hash
    FROM best JOIN loom.sessions s ON s.id = best.session_id
   WHERE s.deleted_hlc IS NULL AND ($4 OR NOT s.archived)
   ORDER BY best.rank DESC, s.id
   LIMIT $2 OFFSET $3
)
SELECT page.id, page.title, page.owner, page.updated_at, page.rank,
       CASE WHEN b.hash IS NULL THEN NULL
            ELSE ts_headline('english', ${BODY_TEXT}, q.query, $5)
       END AS highlighted
  FROM q, page LEFT JOIN loom.bodies b ON b.owner = page.body_owner AND b.hash = page.hash
 ORDER BY page.rank DESC, page.id`;

interface SearchRow {
  id: string;
  title: string | null;
  owner: string;
  updated_at: string;
  rank: number;
  highlighted: string | null;
}

export async function searchHub(hub: HubConfig, query: string, options: HubSearchOptions): Promise<HubSearchHit[]> {
  if (!query.trim()) throw new LoomError('A team search needs some words to look for.', 'usage');
  const client = await connectHub(hub);
  try {
    await checkHubSchema(client);
    const { rows } = await client.query<SearchRow>(SEARCH_SQL, [query, options.limit, options.offset ?? 0, options.includeArchived ?? false, HEADLINE_OPTIONS]);
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
