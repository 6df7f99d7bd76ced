/**
 * What `loom --import-from` shows (docs/DESIGN.md#importing-from-other-agents): progress on
 * stderr while it reads (a bar redrawn in place on a terminal; in a log, a plain line every
 * few seconds, so CI shows it is alive without flooding), every refused line, and one
 * summary line on stdout at the end.
 */
import { counted } from '../core/counted';
import type { ImportSummary } from '../core/import/run';
import { terminalSafe } from './terminal-safe';

const BAR_WIDTH = 30;
const LOG_INTERVAL_MS = 5_000;
/** Refused lines shown one by one; the rest are counted. */
const SHOWN_REFUSALS = 20;

export type ProgressReporter = ((done: number, total: number) => void) & { finish(): void };

export function progressReporter(stream: NodeJS.WriteStream, now: () => number = Date.now): ProgressReporter {
  let lastLog = now();
  let drawn = false;
  const report = (done: number, total: number) => {
    if (stream.isTTY) {
      const filled = Math.round((done / total) * BAR_WIDTH);
      stream.write(`\r[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${done}/${total} files`);
      drawn = true;
    } else if (now() - lastLog >= LOG_INTERVAL_MS && done < total) {
      lastLog = now();
      stream.write(`loom: imported ${done} of ${total} files…\n`);
    }
  };
  return Object.assign(report, {
    finish: () => {
      if (drawn) stream.write('\r\x1b[K');
    },
  });
}

/** Each refusal on its own line (the first few), for stderr. */
export function refusalLines(summary: ImportSummary): string[] {
  const lines = summary.refused.slice(0, SHOWN_REFUSALS).map((line) => `loom: ${terminalSafe(line)}`);
  const more = summary.refused.length - SHOWN_REFUSALS;
  if (more > 0) lines.push(`loom: … and ${counted(more, 'more refusal')}.`);
  return lines;
}

export function summaryLine(source: string, summary: ImportSummary): string {
  const c = summary.counts;
  const where = summary.usedDefault ? `${summary.location}, its default location` : summary.location;
  const parts = [counted(c.created, 'new session'), `${c.grown} grown`, counted(c.forks, 'new fork'), `${counted(c.messages, 'message')} added`];
  const skipped = [`${summary.unchangedFiles} unchanged`];
  if (summary.refused.length) skipped.push(`${summary.refused.length} refused (listed above)`);
  if (c.closedCalls) skipped.push(`${counted(c.closedCalls, 'tool call')} without a result closed`);
  if (c.droppedResults) skipped.push(`${counted(c.droppedResults, 'tool result')} without a call left out`);
  const notUnderstood = [...summary.notUnderstood].map(([what, n]) => `${what} ×${n}`);
  const tail = notUnderstood.length ? `; not understood, skipped: ${notUnderstood.join(', ')}` : '';
  return `Imported from ${source} (${where}): ${counted(summary.files, 'file')} (${parts.join(', ')}); files skipped: ${skipped.join(', ')}${tail}.`;
}
