import { describe, expect, it } from 'vitest';
import { familyRows } from '../../src/renderer/lib/family-rows';

const item = (id: string, pinned = false) => ({ id, pinned, updated_at: '2026-01-01T00:00:00.000Z' });

describe('familyRows', () => {
  // In listing order: the pinned branch b2 first, then newest first.
  const items = [item('b2', true), item('a'), item('b1'), item('c'), item('b')];
  const families = { b2: 'b', a: 'a', b1: 'b', b: 'b' };

  it("folds a family into the row of its first member, a pinned branch's, in its place", () => {
    const rows = familyRows(items, families, new Set(), true);
    expect(rows.map((row) => [row.kind, row.item.id, row.kind === 'family' ? row.members.length : 0])).toEqual([
      ['family', 'b2', 3],
      ['family', 'a', 1],
      // A session the families do not name is its own.
      ['family', 'c', 1],
    ]);
  });

  it("lists an expanded family's other members under its row; a search folds nothing", () => {
    expect(familyRows(items, families, new Set(['b']), true).map((row) => `${row.kind}:${row.item.id}`)).toEqual([
      'family:b2',
      'branch:b1',
      'branch:b',
      'family:a',
      'family:c',
    ]);
    expect(familyRows(items, families, new Set(['b']), false)).toHaveLength(5);
  });
});
