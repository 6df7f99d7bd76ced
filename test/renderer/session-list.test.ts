/** The sidebar applies a session's change event in place: no list is fetched again. */
import { describe, expect, it } from 'vitest';
import { applyChange } from '../../src/renderer/state/session-list';
import type { SessionMeta } from '../../src/shared/types';

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
    expect(applyChange(list, { type: 'session_deleted', sessionId: 'b', meta: list[1] }, false).map((s) => s.id)).toEqual(['c', 'a']);
  });

  it('drops an archived session unless archived ones are shown', () => {
    const archived = meta('b', '2026-01-02', { archived: true });
    const event = { type: 'session_changed', sessionId: 'b', meta: archived } as const;
    expect(applyChange(list, event, false).map((s) => s.id)).toEqual(['c', 'a']);
    expect(applyChange(list, event, true)).toEqual([list[0], archived, list[2]]);
  });
});
