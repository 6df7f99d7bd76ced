import type Database from 'better-sqlite3';
import { errorMessage } from '../errors';
import { isDamageError } from './damage';
import { databasePath, identityProblem, orphanedWalError, readIdentity, tableNames } from './db';
import { inspectFileShape } from './file-shape';
import { withReadOnlyView } from './read-only-view';
import { salvageDatabase, type SalvageResult } from './salvage';

/** What `loom --doctor` found; loom.db itself is only ever read. */
export type DoctorReport =
  | { kind: 'absent'; file: string }
  | { kind: 'healthy'; file: string }
  /** Readable, but not a database this Loom can use (another program's, a newer Loom's). */
  | { kind: 'unusable'; file: string; reason: string }
  /** `salvage` is missing where SQLite cannot read the file at all. */
  | { kind: 'damaged'; file: string; problems: string[]; salvage?: SalvageResult };

/** How many of integrity_check's findings to show: the first ones say enough. */
const MAX_PROBLEMS = 10;

export function examineDatabase(dataDir: string, nativeBinding?: string): DoctorReport {
  const file = databasePath(dataDir);
  const shape = inspectFileShape(file);
  switch (shape.kind) {
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
  const check = checkIntegrity(file, nativeBinding);
  problems.push(...check.problems);
  if (problems.length) return { kind: 'damaged', file, problems, salvage: salvageDatabase(file, nativeBinding) };
  const unusable = check.identity && identityProblem(file, check.identity);
  return unusable ? { kind: 'unusable', file, reason: unusable.message } : { kind: 'healthy', file };
}

function checkIntegrity(file: string, nativeBinding: string | undefined) {
  try {
    return withReadOnlyView(file, nativeBinding, (db) => {
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
