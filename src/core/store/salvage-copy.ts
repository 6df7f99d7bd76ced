import type Database from 'better-sqlite3';
import { isDamageError } from './damage';

/** What was copied of one table. */
export interface CopyReport {
  saved: number;
  /** The key ranges whose pages could not be read, e.g. "rowid between 12 and 40". */
  unreadable: string[];
  /** Rows read but refused by the new schema (a value a broken page made up). */
  refused: number;
}

/**
 * Where the search past a break starts when not one row could be read before it: Loom's
 * keys count up from 1 (a row with a negative key behind a broken first page is lost).
 */
const FIRST_KEY = 0n;
const MAX_KEY = 2n ** 63n - 1n;

/**
 * Copies the readable rows of `table` from `source` to the same table in `target`, in key
 * order, into the columns both have. A read that hits a broken page stops with
 * SQLITE_CORRUPT; the copy then looks for the first key it can read past the break
 * (further and further ahead, then back by halves, each look a fresh descent of the
 * b-tree from its root) and goes on from there. Rows stored only on the broken pages are
 * lost, and rows between two broken pages may be stepped over with them.
 */
export function copyReadableRows(source: Database.Database, target: Database.Database, table: string): CopyReport {
  const shape = tableShape(source, target, table);
  const insert = target.prepare(`INSERT INTO ${quote(table)} (${shape.columns.map(quote).join(', ')}) VALUES (${shape.columns.map(() => '?').join(', ')})`);
  const report: CopyReport = { saved: 0, unreadable: [], refused: 0 };
  const copy = target.transaction(() => {
    for (const values of readableRows(source, shape, report)) {
      try {
        insert.run(values);
        report.saved++;
      } catch {
        report.refused++;
      }
    }
  });
  copy();
  return report;
}

interface TableShape {
  table: string;
  /** The columns copied: those both databases have. */
  columns: string[];
  /** The b-tree's key: rowid, or a WITHOUT ROWID table's primary key columns. */
  key: [string, ...string[]];
  /** Whether the first key column holds integers, so a break can be stepped over. */
  integerKey: boolean;
}

function tableShape(source: Database.Database, target: Database.Database, table: string): TableShape {
  type Column = { name: string; type: string; pk: number };
  const info = (db: Database.Database) => db.prepare('SELECT name, type, pk FROM pragma_table_info(?)').all(table) as Column[];
  const sourceColumns = info(source);
  const wanted = new Set(sourceColumns.map((c) => c.name));
  const columns = info(target)
    .map((c) => c.name)
    .filter((name) => wanted.has(name));
  const sql = (source.prepare(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table) as { sql: string }).sql;
  const [first, ...rest] = sourceColumns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
  // SQLite makes a WITHOUT ROWID table declare a primary key: a table has one or a rowid.
  if (!/WITHOUT\s+ROWID\s*$/i.test(sql.trim()) || first === undefined) return { table, columns, key: ['rowid'], integerKey: true };
  return { table, columns, key: [first.name, ...rest.map((c) => c.name)], integerKey: /INT/i.test(first.type) };
}

/** Yields each readable row's copied values; records the key ranges it had to step over. */
function* readableRows(source: Database.Database, shape: TableShape, report: CopyReport): Generator<unknown[]> {
  const keys = shape.key.map(quote).join(', ');
  const select = `SELECT ${keys}, ${shape.columns.map(quote).join(', ')} FROM ${quote(shape.table)} NOT INDEXED`;
  const afterRow = shape.key.length === 1 ? `${keys} > ?` : `(${keys}) > (${shape.key.map(() => '?').join(', ')})`;
  // Where to read from: a whole key of the last row read, or only a first-key value after
  // a break (the rest of that first key's rows are stepped over with the broken page).
  let from: { sql: string; params: unknown[] } = { sql: '', params: [] };
  let lastFirstKey: bigint | undefined;
  for (;;) {
    const statement = source.prepare(`${select}${from.sql} ORDER BY ${keys}`).raw(true).safeIntegers(true);
    try {
      for (const row of statement.iterate(...from.params) as Iterable<unknown[]>) {
        from = { sql: ` WHERE ${afterRow}`, params: row.slice(0, shape.key.length) };
        lastFirstKey = row[0] as bigint;
        yield row.slice(shape.key.length);
      }
      return;
    } catch (err) {
      if (!isDamageError(err)) throw err;
    }
    const next = shape.integerKey ? firstReadableFrom(source, shape, lastFirstKey === undefined ? FIRST_KEY : lastFirstKey + 1n) : undefined;
    report.unreadable.push(describeGap(shape.key[0], lastFirstKey, next));
    if (next === undefined) return;
    from = { sql: ` WHERE ${quote(shape.key[0])} >= ?`, params: [next] };
  }
}

/**
 * The first first-key value at or past `start` that a read can reach, past the broken
 * page (undefined: nothing readable follows). A look for "the first key >= k" fails
 * exactly when the descent towards k lands on a broken page, i.e. for k from just past
 * the last readable key before the break up to the broken page's last key.
 */
function firstReadableFrom(source: Database.Database, shape: TableShape, start: bigint): bigint | undefined {
  const column = quote(shape.key[0]);
  // Every copied column is read, so a row whose overflow pages are broken counts as broken.
  const probe = source
    .prepare(`SELECT ${column}, ${shape.columns.map(quote).join(', ')} FROM ${quote(shape.table)} NOT INDEXED WHERE ${column} >= ? ORDER BY ${column} LIMIT 1`)
    .raw(true)
    .safeIntegers(true);
  const look = (from: bigint): { next?: bigint } | 'broken' => {
    try {
      return { next: (probe.get(from) as unknown[] | undefined)?.[0] as bigint | undefined };
    } catch (err) {
      if (isDamageError(err)) return 'broken';
      throw err;
    }
  };
  const first = look(start);
  if (first !== 'broken') return first.next;
  // Further and further ahead until a look works...
  let bad = start;
  let good: bigint;
  for (let step = 1n; ; step *= 2n) {
    const at = bad + step >= MAX_KEY ? MAX_KEY : bad + step;
    if (look(at) !== 'broken') {
      good = at;
      break;
    }
    if (at === MAX_KEY) return undefined;
    bad = at;
  }
  // ...then back by halves to the first value from which it works.
  while (good - bad > 1n) {
    const middle: bigint = (bad + good) / 2n;
    if (look(middle) === 'broken') bad = middle;
    else good = middle;
  }
  const found = look(good);
  return found === 'broken' ? undefined : found.next;
}

function describeGap(column: string, last: bigint | undefined, next: bigint | undefined): string {
  if (last === undefined) return next === undefined ? 'all rows' : `rows before ${column} ${next}`;
  return next === undefined ? `rows after ${column} ${last}` : `rows between ${column} ${last} and ${next}`;
}

function quote(name: string): string {
  return name === 'rowid' ? name : `"${name.replaceAll('"', '""')}"`;
}
