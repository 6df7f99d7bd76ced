/**
 * What `loom --import-from` shows (docs/DESIGN.md#importing-from-other-agents): progress on
 * stderr while it reads (a bar redrawn in place on a terminal; in a log, a plain line every
 * few seconds, so CI shows it is alive without flooding), every refused line, and one
 * summary line on stdout at the end (their words: core/import/summary.ts).
 */
import type { ImportSummary } from '../core/import/run';
import { shownRefusals } from '../core/import/summary';
import { terminalSafe } from './terminal-safe';

const BAR_WIDTH = 30;
const LOG_INTERVAL_MS = 5_000;

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
  return shownRefusals(summary).map((line) => `loom: ${terminalSafe(line)}`);
}
