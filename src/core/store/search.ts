import type Database from 'better-sqlite3';
import type { SearchHit } from '../../shared/types';
import { META_COLUMNS, metaFromRow, type MetaRow } from './rows';

/**
 * Turns what a user typed into an FTS5 query that can never be a syntax error: every
 * whitespace-separated word becomes a quoted phrase ("foo-bar" stays one phrase), all
 * of them required. Words without a letter or digit are dropped. Null: nothing to search.
 */
export function toMatchQuery(text: string): string | null {
  const words = text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w));
  if (words.length === 0) return null;
  return words.map((w) => `"${w.replaceAll('"', '""')}"`).join(' ');
}

/** A title or summary match counts double: naming a session is the strongest signal. */
const META_WEIGHT = 2;
const SNIPPET_TOKENS = 16;

interface BestHit extends MetaRow {
  rid: number;
  source: 'transcript' | 'meta';
}

/**
 * Indexes the messages queued by appends; returns how many. Runs before each search (so
 * a search sees every committed message) and when the store is idle.
 */
export function updateSearchIndex(db: Database.Database): number {
  if (!db.prepare('SELECT 1 FROM search_backlog LIMIT 1').get()) return 0;
  const catchUp = db.transaction(() => {
    db.prepare(
      `INSERT INTO messages_fts (rowid, content, tool_text)
       SELECT m.id, m.content, m.tool_text FROM search_backlog b JOIN messages m ON m.id = b.message_id`,
    ).run();
    return db.prepare('DELETE FROM search_backlog').run().changes;
  });
  return catchUp.immediate();
}

/**
 * Ranked by bm25, one hit per session (its best-matching message, or its title/summary),
 * with a snippet whose matches are marked [like this]. The transcript is indexed, not the
 * working context, so compacted-away turns are found too; a message shared by forks is a
 * hit in each of them.
 */
export function searchSessions(
  db: Database.Database,
  query: string,
  opts: { includeArchived?: boolean; limit?: number } = {},
): SearchHit[] {
  const match = toMatchQuery(query);
  if (!match) return [];
  updateSearchIndex(db);
  const rows = db
    .prepare(
      `WITH hits AS (
         SELECT t.session_pk, bm25(messages_fts) AS score, messages_fts.rowid AS rid, 'transcript' AS source
           FROM messages_fts CROSS JOIN transcript t ON t.message_id = messages_fts.rowid
          WHERE messages_fts MATCH @match
         UNION ALL
         SELECT rowid, bm25(sessions_fts) * ${META_WEIGHT}, rowid, 'meta'
           FROM sessions_fts WHERE sessions_fts MATCH @match
       ), best AS (
         SELECT session_pk, MIN(score) AS score, rid, source FROM hits GROUP BY session_pk
       )
       SELECT ${META_COLUMNS}, best.rid, best.source
         FROM best JOIN sessions s ON s.pk = best.session_pk
        WHERE @all OR s.archived = 0
        ORDER BY best.score, s.pk
        LIMIT @limit`,
    )
    .all({ match, all: opts.includeArchived ? 1 : 0, limit: opts.limit ?? 20 }) as BestHit[];
  return rows.map((row) => ({ ...metaFromRow(row), snippet: snippetFor(db, match, row) }));
}

function snippetFor(db: Database.Database, match: string, hit: BestHit): string {
  const table = hit.source === 'meta' ? 'sessions_fts' : 'messages_fts';
  const row = db
    .prepare(`SELECT snippet(${table}, -1, '[', ']', '…', ${SNIPPET_TOKENS}) AS snippet FROM ${table} WHERE ${table} MATCH ? AND rowid = ?`)
    .get(match, hit.rid) as { snippet: string } | undefined;
  return (row?.snippet ?? '').replace(/\s+/g, ' ').trim();
}
