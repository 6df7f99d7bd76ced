/**
 * How an import went, in the words `loom --import-from` prints and the window's "Import
 * from…" dialog shows (docs/DESIGN.md#importing-from-other-agents): the refusals, the first
 * few one by one, and one summary line.
 */
import { IMPORT_SOURCE_LABELS, type ImportReport, type ImportSourceName } from '../../shared/import-sources';
import { counted } from '../counted';
import type { ImportSummary } from './run';

/** Refused lines shown one by one; the rest are counted. */
const SHOWN_REFUSALS = 20;

export function importReport(source: ImportSourceName, summary: ImportSummary): ImportReport {
  return { refused: shownRefusals(summary), summary: summaryLine(source, summary) };
}

/** The first refusals, then how many more there were. */
export function shownRefusals(summary: ImportSummary): string[] {
  const lines = summary.refused.slice(0, SHOWN_REFUSALS);
  const more = summary.refused.length - SHOWN_REFUSALS;
  if (more > 0) lines.push(`… and ${counted(more, 'more refusal')}.`);
  return lines;
}

export function summaryLine(source: ImportSourceName, summary: ImportSummary): string {
  const c = summary.counts;
  const where = summary.usedDefault ? `${summary.location}, its default location` : summary.location;
  const parts = [counted(c.created, 'new session'), `${c.grown} grown`, counted(c.forks, 'new fork'), `${counted(c.messages, 'message')} added`];
  const skipped = [`${summary.unchangedFiles} unchanged`];
  if (summary.notSessions) skipped.push(notSessions(summary.notSessions, IMPORT_SOURCE_LABELS[source]));
  if (summary.refused.length) skipped.push(`${summary.refused.length} refused (listed above)`);
  if (c.closedCalls) skipped.push(`${counted(c.closedCalls, 'tool call')} without a result closed`);
  if (c.droppedCalls) skipped.push(`${counted(c.droppedCalls, 'tool call')} without an id left out with ${c.droppedCalls === 1 ? 'its' : 'their'} results`);
  if (c.droppedResults) skipped.push(`${counted(c.droppedResults, 'tool result')} without a call left out`);
  const notUnderstood = [...summary.notUnderstood].map(([what, n]) => `${what} ×${n}`);
  const tail = notUnderstood.length ? `; not understood, skipped: ${notUnderstood.join(', ')}` : '';
  return `Imported from ${source} (${where}): ${whatWasRead(summary)} (${parts.join(', ')}); ${summary.databases ? 'skipped' : 'files skipped'}: ${skipped.join(', ')}${tail}.`;
}

/** "3 files", or with databases "1,000 sessions from 1 database" (and the files beside them). */
function whatWasRead({ files, databases, databaseSessions }: ImportSummary): string {
  if (!databases) return counted(files, 'file');
  const fromDatabases = `${counted(databaseSessions, 'session')} from ${counted(databases, 'database')}`;
  return files ? `${fromDatabases} and ${counted(files, 'file')}` : fromDatabases;
}

/** "1 not a Codex session", "3 not Codex sessions": files that are something else, said once, not refused one by one. */
function notSessions(n: number, label: string): string {
  return n === 1 ? `1 not ${/^[aeiou]/i.test(label) ? 'an' : 'a'} ${label} session` : `${n} not ${label} sessions`;
}
