import { describe, expect, it } from 'vitest';
import { groupHeading, sessionGroup } from '../../src/renderer/lib/date-groups';

/** Local times, as the sidebar reads them. */
const local = (y: number, m: number, d: number, h = 12, min = 0) => new Date(y, m - 1, d, h, min).toISOString();
const NOW = new Date(2026, 2, 10, 9, 30); // 10 March 2026, 09:30 local

describe('sessionGroup', () => {
  it.each([
    ['earlier today', local(2026, 3, 10, 0, 0), 'Today'],
    ['ahead of the clock', local(2026, 3, 11, 8), 'Today'],
    ['last thing yesterday', local(2026, 3, 9, 23, 59), 'Yesterday'],
    ['first thing yesterday', local(2026, 3, 9, 0, 0), 'Yesterday'],
    ['two days ago', local(2026, 3, 8, 23), 'Previous 7 days'],
    ['seven days ago', local(2026, 3, 3, 0, 0), 'Previous 7 days'],
    ['eight days ago', local(2026, 3, 2, 23, 59), 'Older'],
    ['last year', local(2025, 3, 10), 'Older'],
  ])('%s', (_, updated_at, group) => {
    expect(sessionGroup({ pinned: false, updated_at }, NOW)).toBe(group);
  });

  it('puts a pinned session under Pinned whatever its date', () => {
    expect(sessionGroup({ pinned: true, updated_at: local(2020, 1, 1) }, NOW)).toBe('Pinned');
  });
});

describe('groupHeading', () => {
  const items = [
    { pinned: true, updated_at: local(2020, 1, 1) },
    { pinned: false, updated_at: local(2026, 3, 10, 9) },
    { pinned: false, updated_at: local(2026, 3, 10, 8) },
    { pinned: false, updated_at: local(2026, 3, 5) },
    { pinned: false, updated_at: local(2025, 1, 1) },
    { pinned: false, updated_at: local(2024, 1, 1) },
  ];

  it('heads the rows where the group changes, leaving out empty groups', () => {
    expect(items.map((_, i) => groupHeading(items, i, NOW))).toEqual(['Pinned', 'Today', null, 'Previous 7 days', 'Older', null]);
  });

  it('draws none past the rows loaded', () => {
    expect(groupHeading(items, items.length, NOW)).toBeNull();
  });
});
