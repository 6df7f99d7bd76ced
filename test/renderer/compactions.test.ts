/** What the UI says about compactions: the range, the totals, the request's options, the pins. */
import { describe, expect, it } from 'vitest';
import { compactOptions, compactionCounts, compactionsSummary, pinLabel, rangeLabel, summarisedRange } from '../../src/renderer/lib/compactions';

describe('the range a compaction summarised', () => {
  it('counts messages from 1, as the engine names them, the end inclusive', () => {
    expect(summarisedRange({ summarised_from: 1, kept_from: 5 })).toEqual({ first: 2, last: 5, count: 4 });
    expect(rangeLabel({ summarised_from: 1, kept_from: 5 })).toBe('messages 2 to 5');
    expect(rangeLabel({ summarised_from: 3, kept_from: 4 })).toBe('message 4');
    expect(rangeLabel({ summarised_from: 1, kept_from: 1201 })).toBe('messages 2 to 1,201');
  });

  it("leaves out the system prompt a first compaction's range starts with", () => {
    expect(summarisedRange({ summarised_from: 0, kept_from: 3 })).toEqual({ first: 2, last: 3, count: 2 });
    expect(summarisedRange({ summarised_from: 0, kept_from: 1 })).toBeNull();
  });

  it('is unknown for records older than the range, or empty', () => {
    expect(summarisedRange({ summarised_from: null, kept_from: null })).toBeNull();
    expect(summarisedRange({ summarised_from: 4, kept_from: 4 })).toBeNull();
    expect(rangeLabel({ summarised_from: null, kept_from: 3 })).toBe('Not recorded (an older compaction)');
  });
});

describe('the totals', () => {
  it('sum the requests it took and count the undone ones', () => {
    const counts = compactionCounts([
      { steps: 1, undone_at: null },
      { steps: 3, undone_at: '2026-12-01T10:00:00Z' },
      { steps: null, undone_at: null },
    ]);
    expect(counts).toEqual({ compactions: 3, steps: 4, undone: 1 });
    expect(compactionsSummary(counts)).toBe('3 compactions (1 undone)');
    expect(compactionsSummary(compactionCounts([{ steps: 1, undone_at: null }]))).toBe('1 compaction');
    expect(compactionsSummary(compactionCounts([]))).toBe('0 compactions');
  });
});

describe("Compact now's options", () => {
  it('send no focus when it is blank, the trimmed one otherwise, and the message to compact up to', () => {
    expect(compactOptions('')).toEqual({});
    expect(compactOptions('   \n')).toEqual({});
    expect(compactOptions('  the schema ')).toEqual({ focus: 'the schema' });
    expect(compactOptions('', 0)).toEqual({ upTo: 0 });
    expect(compactOptions('tests', 7)).toEqual({ focus: 'tests', upTo: 7 });
  });
});

describe('a pin', () => {
  it('is named by its message, counted from 1, and who wrote it; a note as a note', () => {
    expect(pinLabel({ seq: 2, role: 'assistant' })).toBe('Message 3, Loom');
    expect(pinLabel({ seq: 1, role: 'user' })).toBe('Message 2, you');
    expect(pinLabel({ seq: 4, role: 'tool' })).toBe('Message 5, tool');
    expect(pinLabel({ seq: null, role: null })).toBe('Note');
  });
});
