import type Database from 'better-sqlite3';
import type { SearchHit } from '../../shared/types';
import { META_COLUMNS, metaFromRow, type MetaRow } from './rows';
import { MATCH_CLOSE, MATCH_OPEN, snippetOf } from './snippet';
import { prepared } from './statements';

/**
 * Turns what a user typed into an FTS5 query that can never be a syntax error: every
 * whitespace-separated word becomes a quoted phrase ("foo-bar" stays one phrase), all
 * of them required. Words without a letter or digit are dropped. Null: nothing to search.
 */
function toMatchQuery(text: string): string | null {
  const words = text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w));
  if (words.length === 0) return null;
  return words.map((w) => `"${w.replaceAll('"', '""')}"`).join(' ');
}

/** A title or summary match counts double: naming a session is the strongest signal. */
const META_WEIGHT = 2;
const SNIPPET_TOKENS = 16;

interface BestHit extends MetaRow {
  pk: number;
  /** The best-matching message (its id and transcript index), null when only the title or summary matched. */
  rid: number | null;
  seq: number | null;
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
    return prepared(db, 'DELETE FROM search_backlog').run().changes;
  });
  return catchUp.immediate();
}

/**
 * Ranked by bm25, one hit per session: its best score over its messages and its
 * title/summary. The snippet comes from its best-matching message (more telling than the
 * title a list shows anyway), else from the title or summary; matches are marked [like
 * this]. The transcript is indexed, not the working context, so compacted-away turns are
 * found too; a message shared by forks is a hit in each of them.
 */
export function searchSessions(db: Database.Database, query: string, opts: { includeArchived?: boolean; limit?: number; offset?: number } = {}): SearchHit[] {
  const match = toMatchQuery(query);
  if (!match) return [];
  updateSearchIndex(db);
  // MATERIALIZED keeps SQLite from folding the bm25() calls into the grouped queries,
  // where FTS5 cannot compute them.
  const rows = prepared(
    db,
    `WITH message_hits AS MATERIALIZED (
         SELECT t.session_pk, bm25(messages_fts) AS score, messages_fts.rowid AS rid, t.seq
           FROM messages_fts CROSS JOIN transcript t ON t.message_id = messages_fts.rowid
          WHERE messages_fts MATCH @match
       ), best_message AS MATERIALIZED (
         SELECT session_pk, MIN(score) AS score, rid, seq FROM message_hits GROUP BY session_pk
       ), meta_hits AS MATERIALIZED (
         SELECT rowid AS session_pk, bm25(sessions_fts) * ${META_WEIGHT} AS score
           FROM sessions_fts WHERE sessions_fts MATCH @match
       ), ranked AS (
         SELECT session_pk, MIN(score) AS score
           FROM (SELECT session_pk, score FROM best_message UNION ALL SELECT session_pk, score FROM meta_hits)
          GROUP BY session_pk
       )
       SELECT ${META_COLUMNS}, s.pk, best_message.rid, best_message.seq
         FROM ranked JOIN sessions s ON s.pk = ranked.session_pk
         LEFT JOIN best_message ON best_message.session_pk = ranked.session_pk
        WHERE @all OR s.archived = 0
        ORDER BY ranked.score, s.pk
        LIMIT @limit OFFSET @offset`,
  ).all({ match, all: opts.includeArchived ? 1 : 0, limit: opts.limit ?? 20, offset: opts.offset ?? 0 }) as BestHit[];
  return rows.map((row) => ({
    ...metaFromRow(row),
    snippet: row.rid === null ? metaSnippet(db, match, row.pk) : messageSnippet(db, match, row.rid),
    message_index: row.seq,
  }));
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

/**
 * Queues every message a transcript append would have queued: a database rebuilt from
 * copied rows (a salvage) starts with an empty full-text index.
 */
export function queueEveryMessageForSearch(db: Database.Database): void {
  prepared(db, `INSERT OR IGNORE INTO search_backlog (message_id) SELECT id FROM messages WHERE in_transcript = 1 AND role <> 'system'`).run();
}
