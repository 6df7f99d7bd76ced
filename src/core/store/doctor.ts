import path from 'node:path';
import type Database from 'better-sqlite3';
import { errorMessage } from '../errors';
import { isDamageError } from './damage';
import { databasePath, identityProblem, orphanedWalError, readIdentity, tableNames } from './db';
import { inspectFileShape, notAFileMessage } from './file-shape';
import { isWritableFolder, withReadOnlyView } from './read-only-view';
import { salvageDatabase, type SalvageResult } from './salvage';

/** What `loom --doctor` found; loom.db itself is only ever read. */
export type DoctorReport =
  | { kind: 'absent'; file: string }
  | { kind: 'healthy'; file: string }
  /** Readable, but not a database this Loom can use (another program's, a newer Loom's). */
  | { kind: 'unusable'; file: string; reason: string }
  /** Not checked: what is there is not a file SQLite may open, or it could not be read; `reason` is the one line. */
  | { kind: 'unchecked'; file: string; reason: string }
  /** `salvage` is missing where SQLite cannot read the file at all; `salvageSkipped` says why none was tried. */
  | { kind: 'damaged'; file: string; problems: string[]; salvage?: SalvageResult; salvageSkipped?: string };

/** How many of integrity_check's findings to show: the first ones say enough. */
const MAX_PROBLEMS = 10;

/** Never throws for what it finds on disk: whatever stops the check is the report's one line. */
export function examineDatabase(dataDir: string): DoctorReport {
  const file = databasePath(dataDir);
  try {
    return examine(file);
  } catch (err) {
    return { kind: 'unchecked', file, reason: `${file} could not be checked (${errorMessage(err)}); it was not changed.` };
  }
}

function examine(file: string): DoctorReport {
  const shape = inspectFileShape(file);
  switch (shape.kind) {
    case 'not-a-file':
      return { kind: 'unchecked', file, reason: notAFileMessage(shape) };
    case 'absent':
    case 'new':
      return { kind: 'absent', file };
    case 'orphaned-wal':
      return { kind: 'damaged', file, problems: [orphanedWalError(file, shape.walBytes, shape.empty).message] };
    case 'not-sqlite':
      return { kind: 'damaged', file, problems: [`it cannot be read as a database: ${shape.reason}`] };
    case 'plausible':
    case 'truncated':
      break;
  }
  const problems = shape.kind === 'truncated' ? [shape.reason] : [];
  const check = checkIntegrity(file);
  problems.push(...check.problems);
  if (problems.length) return damaged(file, problems);
  const unusable = check.identity && identityProblem(file, check.identity);
  return unusable ? { kind: 'unusable', file, reason: unusable.message } : { kind: 'healthy', file };
}

/** The salvaged copy is made beside the file: in a folder Loom cannot write, it is not tried. */
function damaged(file: string, problems: string[]): DoctorReport {
  const folder = path.dirname(file);
  if (!isWritableFolder(folder)) {
    return {
      kind: 'damaged',
      file,
      problems,
      salvageSkipped: `${folder} is read-only, so no salvaged copy can be written beside it; copy the folder somewhere writable and run the doctor there`,
    };
  }
  return { kind: 'damaged', file, problems, salvage: salvageDatabase(file) };
}

function checkIntegrity(file: string) {
  try {
    return withReadOnlyView(file, (db) => {
      const findings = integrityFindings(db);
      return { problems: findings, identity: findings.length ? undefined : readIdentity(db) };
    });
  } catch (err) {
    if (!isDamageError(err)) throw err;
    return { problems: [errorMessage(err)], identity: undefined };
  }
}

/** SQLite's integrity_check: every b-tree page, index and constraint; [] when all is well. */
function integrityFindings(db: Database.Database): string[] {
  try {
    return findings(db, `PRAGMA integrity_check(${MAX_PROBLEMS})`);
  } catch (err) {
    // The check reads every row to test its constraints, and stops at the first broken
    // page; table by table it still says which tables are damaged.
    if (!isDamageError(err)) throw err;
    const byTable = tableNames(db).flatMap((table) => tableFindings(db, table));
    return (byTable.length ? byTable : [errorMessage(err)]).slice(0, MAX_PROBLEMS);
  }
}

function tableFindings(db: Database.Database, table: string): string[] {
  try {
    return findings(db, `PRAGMA integrity_check("${table.replaceAll('"', '""')}")`).map((finding) => `${table}: ${finding}`);
  } catch (err) {
    if (!isDamageError(err)) throw err;
    return [`${table}: ${errorMessage(err)}`];
  }
}

function findings(db: Database.Database, check: string): string[] {
  const rows = db.prepare(check).pluck().all() as string[];
  return rows.length === 1 && rows[0] === 'ok' ? [] : rows;
}
