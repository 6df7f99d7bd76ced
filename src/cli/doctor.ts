/**
 * `loom --doctor`: checks loom.db with SQLite's integrity check and, when it is damaged,
 * salvages what can be read into a new file beside it (src/core/store/doctor.ts). Prints
 * what it found and how to switch to the copy; exit 0 when the database is sound.
 * loom.db itself is never changed nor replaced: the user swaps the files.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { LoomConfig } from '../core/config';
import { shellWord } from '../core/store/damage';
import { examineDatabase, type DoctorReport } from '../core/store/doctor';
import { shmPath, walPath } from '../core/store/file-shape';
import type { SalvageResult, TableSalvage } from '../core/store/salvage';
import { writeOut } from './output';

export async function runDoctor(config: LoomConfig): Promise<number> {
  const report = examineDatabase(config.dataDir);
  await writeOut(`${describe(report).join('\n')}\n`);
  return report.kind === 'healthy' || report.kind === 'absent' ? 0 : 1;
}

function describe(report: DoctorReport): string[] {
  switch (report.kind) {
    case 'absent':
      return [`No session database at ${report.file} yet; nothing to check.`];
    case 'healthy':
      return [`${report.file}: ok (SQLite's integrity check found no damage).`];
    case 'unusable':
      return [`${report.file}: no damage found, but Loom cannot use it: ${report.reason}`];
    case 'unchecked':
      return [report.reason];
    case 'damaged':
      return [
        `${report.file}: damaged.`,
        ...report.problems.map((problem) => `  ${problem}`),
        ...(report.salvage ? describeSalvage(report.file, report.salvage) : [notSalvaged(report.salvageSkipped)]),
      ];
  }
}

function notSalvaged(skipped: string | undefined): string {
  return skipped ? `Not salvaged: ${skipped}. It was not changed.` : `Nothing can be salvaged: SQLite cannot read this file. It was not changed.`;
}

function describeSalvage(file: string, salvage: SalvageResult): string[] {
  if (!salvage.file) {
    const why = salvage.failure ? ` (${salvage.failure})` : '';
    return [`Nothing could be salvaged: not one row was readable${why}. ${file} was not changed.`];
  }
  const shown = salvage.tables.filter((t) => t.saved || t.unreadable.length || t.refused || t.orphans);
  const width = Math.max(...shown.map((t) => t.table.length));
  return [
    `Salvaged what could be read into ${salvage.file}:`,
    ...shown.map((t) => `  ${t.table.padEnd(width)}  ${tableLine(t)}`),
    `${file} was not changed. To switch to the salvaged copy, close every Loom window and command, then:`,
    ...switchCommands(file, salvage.file).map((command) => `  ${command}`),
  ];
}

function tableLine(t: TableSalvage): string {
  const notes = [
    ...(t.unreadable.length ? [`unreadable: ${t.unreadable.join(', ')}`] : []),
    ...(t.orphans ? [`${t.orphans} dropped (what they belong to was lost)`] : []),
    ...(t.refused ? [`${t.refused} refused (values the damage made invalid)`] : []),
  ];
  return [`${t.saved} ${t.saved === 1 ? 'row' : 'rows'} saved`, ...notes].join('; ');
}

/**
 * The damaged file moves aside with its -wal and -shm: a -wal left behind would be
 * replayed into the copy that takes its name.
 */
function switchCommands(file: string, salvaged: string): string[] {
  const aside = path.join(path.dirname(file), path.basename(salvaged).replace('salvaged', 'damaged'));
  const moves = [[file, aside] as const, [walPath(file), walPath(aside)] as const, [shmPath(file), shmPath(aside)] as const].filter(([from]) =>
    fs.existsSync(from),
  );
  return [...moves, [salvaged, file] as const].map(([from, to]) => `mv ${shellWord(from)} ${shellWord(to)}`);
}
