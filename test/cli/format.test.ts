import { describe, expect, it } from 'vitest';
import { formatCost, formatCount, localTime, relativeTime, renderTable, truncate, uniquePrefixes } from '../../src/cli/format';

describe('renderTable', () => {
  const columns = [{ header: 'ID' }, { header: 'TITLE', flex: true }, { header: 'N', align: 'right' as const }];

  it('aligns columns under their headers and right-aligns numbers', () => {
    const lines = renderTable(columns, [
      ['a1', 'short', '5'],
      ['b22', 'a longer title', '120'],
    ]);
    expect(lines).toEqual(['ID   TITLE             N', 'a1   short             5', 'b22  a longer title  120']);
  });

  it('truncates only the flexible column to fit the width, and nothing without a width', () => {
    const rows = [['abc', 'x'.repeat(100), '7']];
    const fitted = renderTable(columns, rows, 40);
    expect(fitted.every((line) => line.length <= 40)).toBe(true);
    expect(fitted[1]).toMatch(/^abc {2}x+… {2}7$/);
    expect(renderTable(columns, rows)[1]).toContain('x'.repeat(100));
  });

  it('counts an emoji as one character when aligning and fitting', () => {
    const lines = renderTable(columns, [
      ['a1', 'fix 😀', '5'],
      ['b2', 'plain', '6'],
    ]);
    expect(lines).toEqual(['ID  TITLE  N', 'a1  fix 😀  5', 'b2  plain  6']);
    expect(renderTable(columns, [['a1', '😀'.repeat(30), '5']], 20)[1]).toBe(`a1  ${'😀'.repeat(12)}…  5`);
  });

  it('keeps each row on one line when a cell holds newlines', () => {
    const lines = renderTable(columns, [['a', 'first\nsecond', '1']]);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('first second');
  });
});

describe('truncate', () => {
  it('does not split an emoji and marks the cut', () => {
    expect(truncate('ab😀cd', 4)).toBe('ab😀…');
    expect(truncate('abc', 3)).toBe('abc');
  });
});

describe('uniquePrefixes', () => {
  it('uses 8 characters unless another id shares them', () => {
    const all = ['aaaaaaaa1111', 'aaaaaaaa1122', 'bbbbbbbbbbbb', 'cccccccccccc'];
    const prefixes = uniquePrefixes(['aaaaaaaa1111', 'bbbbbbbbbbbb'], all);
    expect(prefixes.get('aaaaaaaa1111')).toBe('aaaaaaaa111');
    expect(prefixes.get('bbbbbbbbbbbb')).toBe('bbbbbbbb');
  });

  it('accounts for ids that are not shown (archived ones)', () => {
    const prefixes = uniquePrefixes(['abcdefgh-1'], ['abcdefgh-1', 'abcdefgh-2']);
    expect(prefixes.get('abcdefgh-1')).toBe('abcdefgh-1');
  });
});

describe('times and money', () => {
  const now = new Date('2025-06-15T12:00:00Z');
  it('says how long ago in words, and the date when it is old', () => {
    expect(relativeTime('2025-06-15T11:59:30Z', now)).toBe('just now');
    expect(relativeTime('2025-06-15T11:55:00Z', now)).toBe('5 min ago');
    expect(relativeTime('2025-06-15T09:00:00Z', now)).toBe('3 h ago');
    expect(relativeTime('2025-06-14T10:00:00Z', now)).toBe('yesterday');
    expect(relativeTime('2025-06-11T12:00:00Z', now)).toBe('4 days ago');
    expect(relativeTime('2025-01-02T12:00:00Z', now)).toMatch(/^2025-01-0[23]$/);
  });

  it('formats local time and cost', () => {
    expect(localTime('2025-01-02T12:00:00Z')).toMatch(/^2025-01-0[23] \d\d:\d\d$/);
    expect(formatCost(0)).toBe('$0.00');
    expect(formatCost(0.0032)).toBe('$0.0032');
    expect(formatCost(1.5)).toBe('$1.50');
  });

  it('groups the digits of counts by thousands, as en-US does', () => {
    for (const n of [0, 7, 999, 1000, 12345, 999999, 1234567, -4200, Number.MAX_SAFE_INTEGER]) {
      expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
    }
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatCount(2.5)).toBe('2.5');
  });
});
