import type Database from 'better-sqlite3';
import { searchTerms } from '../../shared/search-terms';
import type { SearchHit } from '../../shared/types';
import { META_COLUMNS, metaFromRow, type MetaRow } from './rows';
import { MATCH_CLOSE, MATCH_OPEN, snippetOf } from './snippet';
import { clearSearchBacklog } from './repositories/transcript';
import { prepared } from './statements';
import { LIVE } from './trash';

/**
 * Turns what a user typed into an FTS5 query that can never be a syntax error: every term
 * (shared/search-terms.ts: a word, or a "quoted phrase") becomes an FTS5 string, so a
 * phrase matches its words in order ("foo-bar" stays one phrase too) and nothing in it is
 * an operator; all of them required. Null: nothing to search.
 */
function toMatchQuery(text: string): string | null {
  const terms = searchTerms(text);
  if (terms.length === 0) return null;
  return terms.map((term) => `"${term}"`).join(' ');
}

/** A title or summary match counts double: naming a session is the strongest signal. */
const META_WEIGHT = 2;
const SNIPPET_TOKENS = 16;

interface BestHit extends MetaRow {
  pk: number;
}

/** Best-ranked messages fetched first; more (×4 each time) only when they name too few sessions. */
const FIRST_CANDIDATES_PER_HIT = 10;
const MORE_CANDIDATES = 4;
/**
 * A query matching at least this many messages is common: ranking every match by bm25 costs
 * ~2.5 µs a match (200 ms for a word in 80,000 messages), so it is ranked in windows of its
 * newest matches instead, the first COMMON_CANDIDATES long (docs/DESIGN.md#search).
 */
const COMMON_MATCHES = 5_000;
const COMMON_CANDIDATES = 2_000;

interface Ranked {
  pk: number;
  /** Which window of a common query's newest matches named it (0 for every other hit): ranked first. */
  tier: number;
  score: number;
  /** The best-matching message (its id and transcript index), null when only the title or summary matched. */
  rid: number | null;
  seq: number | null;
}

interface SearchParams {
  match: string;
  all: number;
  /** Only the sessions of this project folder (the sidebar's filter); null: every one. */
  project: string | null;
  /** How many sessions from the top: the page asked for and those before it. */
  wanted: number;
}

/**
 * Indexes the messages queued by appends; returns how many. Runs before each search (so
 * a search sees every committed message) and when the store is idle.
 */
export function updateSearchIndex(db: Database.Database): number {
  if (!prepared(db, 'SELECT 1 FROM search_backlog LIMIT 1').get()) return 0;
  const catchUp = db.transaction(() => {
    prepared(
      db,
      `INSERT INTO messages_fts (rowid, content, tool_text)
       SELECT m.id, m.content, m.tool_text FROM search_backlog b JOIN messages m ON m.id = b.message_id`,
    ).run();
    return clearSearchBacklog(db);
  });
  return catchUp.immediate();
}

/**
 * Ranked by bm25, one hit per session: its best score over its messages and its
 * title/summary. The snippet comes from its best-matching message (more telling than the
 * title a list shows anyway), else from the title or summary; matches are marked [like
 * this]. The transcript is indexed, not the working context, so compacted-away turns are
 * found too. A fork shares its parent's rows, not copies of them: a message shared by a
 * parent and its forks is a hit in each session holding it up to its fork point, archived
 * or trashed parent or not; a trashed session itself is never a hit (trash.ts).
 * A word in most sessions must not rank every match and then group them: only the
 * best-ranked messages are read, enough of them to name the sessions asked for
 * (docs/DESIGN.md#search).
 */
export function searchSessions(
  db: Database.Database,
  query: string,
  opts: { includeArchived?: boolean; limit?: number; offset?: number; project?: string } = {},
): SearchHit[] {
  const match = toMatchQuery(query);
  if (!match) return [];
  updateSearchIndex(db);
  const offset = opts.offset ?? 0;
  const params = { match, all: opts.includeArchived ? 1 : 0, project: opts.project ?? null, wanted: offset + (opts.limit ?? 20) };
  // One read transaction: every statement below sees the same sessions.
  return db.transaction(() => {
    const messageHits = isCommon(db, match) ? newestMessagePerSession(db, params) : bestMessagePerSession(db, params);
    const page = topSessions([...messageHits, ...metaHits(db, params)]).slice(offset, params.wanted);
    const rows = prepared(db, `SELECT ${META_COLUMNS}, s.pk FROM sessions s WHERE s.pk IN (SELECT value FROM json_each(?))`).all(
      JSON.stringify(page.map((hit) => hit.pk)),
    ) as BestHit[];
    const byPk = new Map(rows.map((row) => [row.pk, row]));
    return page.map((hit) => ({
      ...metaFromRow(byPk.get(hit.pk)!),
      snippet: hit.rid === null ? metaSnippet(db, match, hit.pk) : messageSnippet(db, match, hit.rid),
      message_index: hit.seq,
    }));
  })();
}

/** Each session once, at its best tier and score (lower is better; the older session first on a tie), best first. */
function topSessions(hits: Ranked[]): Ranked[] {
  const best = new Map<number, Ranked>();
  for (const hit of [...hits].sort((a, b) => a.tier - b.tier || a.score - b.score || a.pk - b.pk)) if (!best.has(hit.pk)) best.set(hit.pk, hit);
  return [...best.values()];
}

/**
 * Every session whose transcript holds one of the messages `@rids`, as `holder (rid, seq,
 * pk)`: the session owning its transcript row, then each fork reading that row through
 * its chain (transcript-chain.ts) — one whose fork point is past the row's seq, so rows
 * the parent added after the fork are not the fork's. Archived sessions are walked
 * through too: an archived parent's forks still hold its messages.
 */
const HOLDERS_OF_MESSAGES = `WITH RECURSIVE holder (rid, seq, pk) AS (
    SELECT t.message_id, t.seq, t.session_pk FROM transcript t WHERE t.message_id IN (SELECT value FROM json_each(@rids))
    UNION ALL
    SELECT h.rid, h.seq, f.pk FROM holder h JOIN sessions f ON f.fork_parent_pk = h.pk AND f.fork_at > h.seq
  )`;

/** The sessions holding the messages matched (their bm25 scores by message id), best first. */
function sessionsHolding(db: Database.Database, params: SearchParams, score: Map<number, number>, tier: number): Ranked[] {
  // CROSS JOIN keeps the holders outermost: SQLite would otherwise be free to scan every session.
  const rows = prepared(
    db,
    `${HOLDERS_OF_MESSAGES} SELECT h.rid, h.seq, s.pk FROM holder h CROSS JOIN sessions s ON s.pk = h.pk WHERE ${LIVE} AND (@all OR s.archived = 0) AND (@project IS NULL OR s.project_dir = @project)`,
  ).all({ rids: JSON.stringify([...score.keys()]), all: params.all, project: params.project }) as Array<{ rid: number; seq: number; pk: number }>;
  return topSessions(rows.map((row) => ({ pk: row.pk, tier, score: score.get(row.rid)!, rid: row.rid, seq: row.seq })));
}

function isCommon(db: Database.Database, match: string): boolean {
  return prepared(db, 'SELECT 1 FROM messages_fts WHERE messages_fts MATCH @match LIMIT 1 OFFSET @skip').get({ match, skip: COMMON_MATCHES - 1 }) !== undefined;
}

/**
 * Each session's best message among the best-ranked ones, in rank order. A session whose
 * best message is not among them ranks below every session listed, so once `wanted`
 * sessions are listed (or every match was read) the top `wanted` is exact.
 */
function bestMessagePerSession(db: Database.Database, params: SearchParams): Ranked[] {
  const candidatesOf = prepared(db, 'SELECT rowid AS rid, rank AS score FROM messages_fts WHERE messages_fts MATCH @match ORDER BY rank LIMIT @candidates');
  for (let candidates = params.wanted * FIRST_CANDIDATES_PER_HIT; ; candidates *= MORE_CANDIDATES) {
    const messages = candidatesOf.all({ match: params.match, candidates }) as Array<{ rid: number; score: number }>;
    const sessions = sessionsHolding(db, params, new Map(messages.map((m) => [m.rid, m.score])), 0);
    if (sessions.length >= params.wanted || messages.length < candidates) return sessions;
  }
}

/**
 * A common query's sessions, window by window of its newest matches (each 4× the last), by
 * bm25 within a window: recent work first, and a page never reorders the pages before it.
 * bm25 (the rank column) is computed only for the rows read, as they are not ordered by it.
 */
function newestMessagePerSession(db: Database.Database, params: SearchParams): Ranked[] {
  const windowOf = prepared(
    db,
    'SELECT rowid AS rid, rank AS score FROM messages_fts WHERE messages_fts MATCH @match ORDER BY rowid DESC LIMIT @size OFFSET @start',
  );
  const listed = new Map<number, Ranked>();
  for (let tier = 0, start = 0, size = COMMON_CANDIDATES; ; tier++, start += size, size *= MORE_CANDIDATES) {
    const messages = windowOf.all({ match: params.match, size, start }) as Array<{ rid: number; score: number }>;
    for (const hit of sessionsHolding(db, params, new Map(messages.map((m) => [m.rid, m.score])), tier)) if (!listed.has(hit.pk)) listed.set(hit.pk, hit);
    if (listed.size >= params.wanted || messages.length < size) return [...listed.values()];
  }
}

/** The best `wanted` title/summary matches; a session named there counts double. */
function metaHits(db: Database.Database, params: SearchParams): Ranked[] {
  return prepared(
    db,
    `SELECT s.pk, 0 AS tier, bm25(sessions_fts) * ${META_WEIGHT} AS score, NULL AS rid, NULL AS seq
       FROM sessions_fts JOIN sessions s ON s.pk = sessions_fts.rowid
      WHERE sessions_fts MATCH @match AND ${LIVE} AND (@all OR s.archived = 0) AND (@project IS NULL OR s.project_dir = @project)
      ORDER BY score, s.pk LIMIT @wanted`,
  ).all(params) as Ranked[];
}

// The CASTs below matter: numbers are bound as REAL, and FTS5 ignores a rowid constraint that
// is not an INTEGER (it would return every match's snippet, the first one winning).

function metaSnippet(db: Database.Database, match: string, pk: number): string {
  const row = prepared(
    db,
    `SELECT snippet(sessions_fts, -1, '[', ']', '…', ${SNIPPET_TOKENS}) AS snippet FROM sessions_fts WHERE sessions_fts MATCH ? AND rowid = CAST(? AS INTEGER)`,
  ).get(match, pk) as { snippet: string } | undefined;
  return (row?.snippet ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * The whole message highlighted, cut to a snippet in snippet.ts: FTS5's own snippet() would
 * cut through Loom's fence tags, which the user must not see.
 */
function messageSnippet(db: Database.Database, match: string, rid: number): string {
  const row = prepared(
    db,
    `SELECT highlight(messages_fts, 0, @open, @close) AS content, highlight(messages_fts, 1, @open, @close) AS tool_text
       FROM messages_fts WHERE messages_fts MATCH @match AND rowid = CAST(@rid AS INTEGER)`,
  ).get({ open: MATCH_OPEN, close: MATCH_CLOSE, match, rid }) as { content: string | null; tool_text: string | null } | undefined;
  if (!row) return '';
  const matched = [row.content, row.tool_text].find((text) => text?.includes(MATCH_OPEN)) ?? row.content ?? row.tool_text ?? '';
  return snippetOf(matched, SNIPPET_TOKENS);
}
