/**
 * The sidebar's pages by family (docs/DESIGN.md#the-sidebar): sessions.family_id
 * (migration-v20.ts) names the conversation each session branched from, transitively.
 */
import type Database from 'better-sqlite3';
import type { SessionCursor } from '../../shared/types';
import { prepared } from './statements';

/** The families a page lists: the pinned ones and a page of the others, and the next page's place. */
export interface FamilyPage {
  pinned: string[];
  families: string[];
  next: SessionCursor | null;
}

/**
 * The INDEXED BY clauses keep each probe to its family or to the pinned few: without the
 * statistics of ANALYZE the planner would walk the whole list for each head.
 * `listed`: the condition (on alias `s`) a session meets to be listed; `params` fill it.
 * A family is listed by its head, its newest listed member; a family with a pinned listed
 * member is pinned, all of them on the first page (they are few). The others page by
 * their heads' (updated_at, id), so a page holds `limit` families, whatever their size.
 */
export function familyPage(
  db: Database.Database,
  listed: string,
  params: Record<string, unknown>,
  opts: { limit: number; after?: SessionCursor | undefined },
): FamilyPage {
  const heads = prepared(
    db,
    `WITH listed AS NOT MATERIALIZED (SELECT s.id, s.family_id, s.updated_at, s.pinned FROM sessions s WHERE ${listed})
     SELECT h.family_id, h.updated_at, h.id FROM listed h
      WHERE h.pinned = 0 ${opts.after ? 'AND (h.updated_at, h.id) < (@after_updated_at, @after_id)' : ''}
        AND NOT EXISTS (SELECT 1 FROM sessions s INDEXED BY sessions_by_family
                         WHERE s.family_id = h.family_id AND ${listed} AND (s.pinned = 1 OR (s.updated_at, s.id) > (h.updated_at, h.id)))
      ORDER BY h.updated_at DESC, h.id DESC LIMIT @limit`,
  ).all({
    ...params,
    limit: opts.limit + 1,
    ...(opts.after && { after_updated_at: opts.after.updated_at, after_id: opts.after.id }),
  }) as { family_id: string; updated_at: string; id: string }[];
  const page = heads.slice(0, opts.limit);
  const last = page.at(-1);
  const pinned = opts.after
    ? []
    : (
        prepared(db, `SELECT DISTINCT s.family_id FROM sessions s INDEXED BY sessions_pinned WHERE ${listed} AND s.pinned = 1`).all(params) as {
          family_id: string;
        }[]
      ).map((row) => row.family_id);
  return {
    pinned,
    families: page.map((head) => head.family_id),
    // One head more than asked says whether another page follows, without a count.
    next: heads.length > opts.limit && last ? { updated_at: last.updated_at, id: last.id } : null,
  };
}
