/**
 * Search for a word in most sessions (docs/DESIGN.md#search): only the best-ranked messages
 * are read, more of them when they name too few sessions. The top hits must be exactly what
 * ranking every match would give; the oracle below does that, in one SQL query.
 */
import { describe, expect, it } from 'vitest';
import type { SessionStore } from '../../src/core/store/session-store';
import { nth } from '../support/elements';
import { assistant, openStore, system, user } from './helpers';

/** Every session's best score over all its matching messages and its title/summary (×2), best first. */
function rankEveryMatch(store: SessionStore, word: string, includeArchived: boolean): string[] {
  store.updateSearchIndex(); // as a search does first
  const rows = store.db
    .prepare(
      `WITH scores AS MATERIALIZED (
         SELECT t.session_pk AS pk, bm25(messages_fts) AS score FROM messages_fts JOIN transcript t ON t.message_id = messages_fts.rowid WHERE messages_fts MATCH @match
         UNION ALL
         SELECT rowid AS pk, bm25(sessions_fts) * 2 AS score FROM sessions_fts WHERE sessions_fts MATCH @match
       )
       SELECT s.id, s.archived FROM (SELECT pk, MIN(score) AS score FROM scores GROUP BY pk) best JOIN sessions s ON s.pk = best.pk
        ORDER BY best.score, s.pk`,
    )
    .all({ match: `"${word}"` }) as Array<{ id: string; archived: number }>;
  return rows.filter((row) => includeArchived || !row.archived).map((row) => row.id);
}

/**
 * A few sessions with hundreds of strong matches each (they fill the first candidates, so
 * the search must read more), many with one weak match, one named by its title only, and
 * archived ones among the strong.
 */
function seed(store: SessionStore): { strong: string[]; titled: string; archived: string } {
  const strong = Array.from({ length: 6 }, (_, i) => {
    const messages = [system(), ...Array.from({ length: 120 }, (_, n) => user(`code code review ${i} ${n}`))];
    return store.create({ messages }).id;
  });
  for (let i = 0; i < 60; i++) {
    const filler = Array.from({ length: 8 + (i % 13) }, (_, n) => `word${n}`).join(' ');
    store.create({ messages: [system(), user(`A note on ${filler} and some code, session ${i}.`), assistant('Noted.')] });
  }
  const titled = store.create({ title: 'Code', messages: [system(), user('Nothing about it here.')] }).id;
  const archived = nth(strong, 2);
  store.setArchived(archived, true);
  return { strong, titled, archived };
}

describe('search for a word in most sessions', () => {
  it('returns the same top hits as ranking every match, one per session', () => {
    const store = openStore();
    const { strong, titled, archived } = seed(store);
    const hits = store.search('code', { limit: 20 }).map((hit) => hit.id);
    expect(hits).toEqual(rankEveryMatch(store, 'code', false).slice(0, 20));
    expect(new Set(hits).size).toBe(20);
    expect(hits.slice(0, 6)).toEqual(expect.arrayContaining([...strong.filter((id) => id !== archived), titled]));
    expect(hits).not.toContain(archived);
  });

  it('includes archived sessions when asked, pages, and reaches past the sessions that fill the first candidates', () => {
    const store = openStore();
    const { archived, titled } = seed(store);
    const everything = rankEveryMatch(store, 'code', true);
    expect(store.search('code', { includeArchived: true, limit: 20 }).map((hit) => hit.id)).toEqual(everything.slice(0, 20));
    expect(store.search('code', { includeArchived: true, limit: 20 }).map((hit) => hit.id)).toContain(archived);
    const paged = store.search('code', { includeArchived: true, offset: 20, limit: 20 });
    expect(paged.map((hit) => hit.id)).toEqual(everything.slice(20, 40));
    const all = store.search('code', { limit: 1000 });
    expect(all.map((hit) => hit.id)).toEqual(rankEveryMatch(store, 'code', false));
    expect(all.find((hit) => hit.id === titled)?.snippet).toBe('[Code]');
  });
});

describe('search for a word in at least 5,000 messages', () => {
  /** 60 older sessions of 100 strong matches each, then 30 newer ones with one weak match. */
  function seedCommon(store: SessionStore): { older: string[]; newer: string[] } {
    const create = (messages: ReturnType<typeof user>[]) => store.create({ messages: [system(), ...messages] }).id;
    const older = store.db.transaction(() =>
      Array.from({ length: 60 }, (_, i) => create(Array.from({ length: 100 }, (_, n) => user(`code code ${i} ${n}`)))),
    )();
    const filler = Array.from({ length: 40 }, (_, n) => `word${n}`).join(' ');
    const newer = store.db.transaction(() => Array.from({ length: 30 }, (_, i) => create([user(`${filler} and some code, session ${i}.`)])))();
    return { older, newer };
  }

  it('ranks its newest 2,000 matches first: the sessions of older ones come after them', () => {
    const store = openStore();
    const { older, newer } = seedCommon(store);
    const oldest = older.slice(0, 40);
    expect(
      rankEveryMatch(store, 'code', false)
        .slice(0, 20)
        .every((id) => oldest.includes(id)),
    ).toBe(true);
    const hits = store.search('code', { limit: 50 }).map((hit) => hit.id);
    // The newest 2,000 matches: the 30 newer sessions and the last 20 older ones, strong matches first.
    expect(new Set(hits.slice(0, 20))).toEqual(new Set(older.slice(40)));
    expect(new Set(hits.slice(20, 50))).toEqual(new Set(newer));
  });

  it('pages without repeating a session', () => {
    const store = openStore();
    seedCommon(store);
    const pages = [0, 20, 40].map((offset) => store.search('code', { limit: 20, offset }).map((hit) => hit.id));
    expect(new Set(pages.flat()).size).toBe(60);
  });
});
