/** The sidebar applies a session's change event to the rows loaded so far: no list is fetched again. */
import { describe, expect, it } from 'vitest';
import { appendPage, applyChange, applyToHits } from '../../src/renderer/state/session-list';
import type { SessionMeta } from '../../src/shared/types';
import { nth } from '../support/elements';

const meta = (id: string, updated_at: string, extra: Partial<SessionMeta> = {}): SessionMeta => ({
  id,
  parent_id: null,
  title: id,
  summary: null,
  status: 'saved',
  archived: false,
  created_at: updated_at,
  updated_at,
  message_count: 0,
  model: null,
  cwd: null,
  project_dir: null,
  pinned: false,
  agent: null,
  ...extra,
});

const list = [meta('c', '2026-01-03'), meta('b', '2026-01-02'), meta('a', '2026-01-01')];

describe('applyChange', () => {
  it('moves a changed session to its place by last update, newest first', () => {
    const renamed = meta('a', '2026-01-04', { title: 'Renamed' });
    expect(applyChange(list, { type: 'session_changed', sessionId: 'a', meta: renamed }, false)).toEqual([renamed, list[0], list[1]]);
    const bookkeeping = meta('b', '2026-01-02', { status: 'active' });
    expect(applyChange(list, { type: 'session_changed', sessionId: 'b', meta: bookkeeping }, false)).toEqual([list[0], bookkeeping, list[2]]);
  });

  it('adds a new session and removes a deleted one', () => {
    const added = meta('d', '2026-01-02T12:00:00Z');
    expect(applyChange(list, { type: 'session_changed', sessionId: 'd', meta: added }, false).map((s) => s.id)).toEqual(['c', 'd', 'b', 'a']);
    expect(applyChange(list, { type: 'session_deleted', sessionId: 'b', meta: nth(list, 1) }, false).map((s) => s.id)).toEqual(['c', 'a']);
  });

  it('drops an archived session unless archived ones are shown', () => {
    const archived = meta('b', '2026-01-02', { archived: true });
    const event = { type: 'session_changed', sessionId: 'b', meta: archived } as const;
    expect(applyChange(list, event, false).map((s) => s.id)).toEqual(['c', 'a']);
    expect(applyChange(list, event, true)).toEqual([list[0], archived, list[2]]);
  });
});

describe('a partly loaded list', () => {
  it('leaves a session whose place is past the loaded rows to the page that will bring it', () => {
    const older = meta('z', '2025-12-01');
    const event = { type: 'session_changed', sessionId: 'z', meta: older } as const;
    expect(applyChange(list, event, false, false)).toEqual(list);
    expect(applyChange(list, event, false, true).map((s) => s.id)).toEqual(['c', 'b', 'a', 'z']);
    // A loaded session that changes moves up whether or not more pages follow.
    const bumped = meta('a', '2026-02-01');
    expect(applyChange(list, { type: 'session_changed', sessionId: 'a', meta: bumped }, false, false).map((s) => s.id)).toEqual(['a', 'c', 'b']);
  });

  it('breaks a tie of update times by id, as the store lists them', () => {
    const tie = meta('bb', '2026-01-02');
    expect(applyChange(list, { type: 'session_changed', sessionId: 'bb', meta: tie }, false).map((s) => s.id)).toEqual(['c', 'bb', 'b', 'a']);
  });

  it('does not list twice a session an event placed before its page arrived', () => {
    const moved = meta('y', '2026-03-01');
    const withMoved = [moved, ...list];
    expect(appendPage(withMoved, [meta('y', '2025-11-01'), meta('x', '2025-10-01')]).map((s) => s.id)).toEqual(['y', 'c', 'b', 'a', 'x']);
  });
});

describe('search hits', () => {
  const hits = list.map((s, i) => ({ ...s, snippet: `hit ${i}`, message_index: i }));
  it('keep their rank and snippet when their session changes, and go when it is deleted or archived', () => {
    const renamed = meta('b', '2026-05-01', { title: 'Renamed' });
    const changed = applyToHits(hits, { type: 'session_changed', sessionId: 'b', meta: renamed }, false);
    expect(changed.map((h) => [h.id, h.title, h.snippet, h.message_index])).toEqual([
      ['c', 'c', 'hit 0', 0],
      ['b', 'Renamed', 'hit 1', 1],
      ['a', 'a', 'hit 2', 2],
    ]);
    expect(applyToHits(hits, { type: 'session_deleted', sessionId: 'a', meta: nth(list, 2) }, false).map((h) => h.id)).toEqual(['c', 'b']);
    expect(applyToHits(hits, { type: 'session_changed', sessionId: 'c', meta: { ...nth(list, 0), archived: true } }, false).map((h) => h.id)).toEqual([
      'b',
      'a',
    ]);
    expect(applyToHits(hits, { type: 'session_changed', sessionId: 'q', meta: meta('q', '2026-06-01') }, false)).toBe(hits);
  });

  it("from the Team scope: a hit whose session arrives (a sync) is on this device from then on, still under its owner's name", () => {
    const teamHits = hits.map((h) => ({ ...h, team: { owner: 'erin', synced: h.id !== 'b' } }));
    const arrived = applyToHits(teamHits, { type: 'session_changed', sessionId: 'b', meta: meta('b', '2026-05-01', { title: 'Pulled' }) }, false);
    expect(arrived.find((h) => h.id === 'b')).toMatchObject({ title: 'Pulled', snippet: 'hit 1', team: { owner: 'erin', synced: true } });
  });
});
