/**
 * What `loom --import-from` prints while it works: a bar redrawn in place on a terminal, a
 * plain line every few seconds in a log, the refusals, and the one summary line.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ImportSummary } from '../../src/core/import/run';
import { progressReporter, refusalLines } from '../../src/cli/import-report';
import { summaryLine } from '../../src/core/import/summary';

function stream(isTTY: boolean): { out: NodeJS.WriteStream; text: () => string } {
  const pass = new PassThrough();
  let text = '';
  pass.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { out: Object.assign(pass, { isTTY }) as unknown as NodeJS.WriteStream, text: () => text };
}

const summary = (over: Partial<ImportSummary> = {}): ImportSummary => ({
  location: '/home/ada/.claude/projects',
  usedDefault: true,
  files: 3,
  databases: 0,
  databaseSessions: 0,
  unchangedFiles: 1,
  notSessions: 0,
  counts: { created: 1, grown: 1, forks: 0, messages: 12, closedCalls: 0, droppedResults: 2, droppedCalls: 0 },
  refused: [],
  notUnderstood: new Map(),
  ...over,
});

describe('import progress', () => {
  it('draws a bar in place on a terminal and clears it at the end', async () => {
    const { out, text } = stream(true);
    const report = progressReporter(out);
    report(1, 4);
    report(4, 4);
    report.finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(text()).toBe(`\r[${'#'.repeat(8)}${'.'.repeat(22)}] 1/4 files\r[${'#'.repeat(30)}] 4/4 files\r\x1b[K`);
  });

  it('in a log, writes a plain line only once five seconds have passed, and nothing at the end', async () => {
    const { out, text } = stream(false);
    let now = 0;
    const report = progressReporter(out, () => now);
    report(1, 100);
    now = 5_000;
    report(40, 100);
    now = 6_000;
    report(41, 100);
    now = 20_000;
    report(100, 100);
    report.finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(text()).toBe('loom: imported 40 of 100 files…\n');
  });
});

describe('import summary', () => {
  it('is one line: where, what was added, what was skipped and why', () => {
    expect(summaryLine('claude-code', summary({ notUnderstood: new Map([['claude-code entry type "x"', 2]]) }))).toBe(
      'Imported from claude-code (/home/ada/.claude/projects, its default location): 3 files (1 new session, 1 grown, 0 new forks, 12 messages added); ' +
        'files skipped: 1 unchanged, 2 tool results without a call left out; not understood, skipped: claude-code entry type "x" ×2.',
    );
  });

  it('counts the files that are not sessions of the source in a few words, not one refusal each', () => {
    expect(summaryLine('codex', summary({ notSessions: 3 }))).toContain('files skipped: 1 unchanged, 3 not Codex sessions, 2 tool results');
    expect(summaryLine('codex', summary({ notSessions: 1 }))).toContain('files skipped: 1 unchanged, 1 not a Codex session, 2 tool results');
  });

  it('lists the first twenty refusals and counts the rest, with control characters shown, not obeyed', () => {
    const refused = Array.from({ length: 23 }, (_, i) => `/x/s.jsonl:${i + 1}: not valid JSON, skipped`);
    refused[0] = '/x/\x1b[31mred.jsonl:1: not valid JSON, skipped';
    const lines = refusalLines(summary({ refused }));
    expect(lines).toHaveLength(21);
    expect(lines[0]).not.toContain('\x1b');
    expect(lines[20]).toBe('loom: … and 3 more refusals.');
  });
});
