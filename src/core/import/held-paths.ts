/**
 * The paths of one source conversation that Loom sessions already hold, indexed by entry key
 * (docs/DESIGN.md#importing-from-other-agents). A key names one entry of the source's tree,
 * and so the path from the root to it: where a branch parts from what is held is found by
 * walking its keys once, whatever the number of sessions, and a fork's record keeps only the
 * keys it added (store/import-records.ts). A file with many branches then costs time and
 * bookkeeping in proportion to its entries, not to the sum of its paths.
 */
import type { ImportBranchRecord } from '../store/repositories/import-records';

/** How a branch's keys meet the held paths. */
export type Meeting =
  /** Every key is held already: the branch adds nothing. `record`'s path is exactly the branch, when one is. */
  | { held: true; record?: ImportBranchRecord }
  /** The first `shared` keys are held, ending in `record`'s path (none when `shared` is 0). */
  | { held: false; shared: number; record?: ImportBranchRecord };

export class HeldPaths {
  private readonly at = new Map<string, { record: ImportBranchRecord; position: number }>();
  /** Forks whose base session was deleted (its record went with it): their own keys vouch for the base's. */
  private readonly orphans: ImportBranchRecord[];

  /** `records` oldest first, as import-records.ts lists them: a base is listed before its forks. */
  constructor(records: readonly ImportBranchRecord[]) {
    for (const record of records) this.index(record, 0);
    const ids = new Set(records.map((record) => record.sessionId));
    this.orphans = records.filter((record) => record.base && !ids.has(record.base.sessionId));
  }

  /** The length of the record's whole path: its base's keys, then its own. */
  length(record: ImportBranchRecord): number {
    return (record.base?.count ?? 0) + record.keys.length;
  }

  meet(keys: readonly string[]): Meeting {
    let shared = 0;
    for (let key = keys[0]; key !== undefined; key = keys[shared]) {
      if (this.at.get(key)?.position === shared) shared++;
      else {
        const resumed = this.orphanGoingOn(keys, shared);
        if (resumed === undefined) break;
        shared = resumed;
      }
    }
    const lastShared = keys[shared - 1]; // undefined when nothing is shared
    const record = lastShared === undefined ? undefined : this.at.get(lastShared)?.record;
    if (shared < keys.length) return { held: false, shared, record };
    return { held: true, record: record && this.length(record) === keys.length ? record : undefined };
  }

  /** Where an orphan's own keys go on in `keys` beyond `from`, when they do: the keys before them were its base's. */
  private orphanGoingOn(keys: readonly string[], from: number): number | undefined {
    for (const orphan of this.orphans) {
      const start = orphan.base?.count ?? 0;
      const key = keys[start];
      if (start > from && key !== undefined && this.at.get(key)?.record === orphan) return start;
    }
    return undefined;
  }

  /** Records a new session's path, or the keys a grown one gained (its own keys from `from` on). */
  add(record: ImportBranchRecord, from = 0): void {
    this.index(record, from);
  }

  private index(record: ImportBranchRecord, from: number): void {
    const base = record.base?.count ?? 0;
    for (const [n, key] of record.keys.slice(from).entries()) {
      // The first session to hold an entry keeps it: a fork names the same entries through its base.
      if (!this.at.has(key)) this.at.set(key, { record, position: base + from + n });
    }
  }
}
