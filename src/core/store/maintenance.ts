import type Database from 'better-sqlite3';
import { updateSearchIndex } from './search';

/** How long after a write the store catches up on search indexing and checkpointing. */
const MAINTENANCE_DELAY_MS = 2_000;

/**
 * Work kept off the write path, done shortly after writes stop: index the messages
 * appended since the last search, and copy the WAL back into the database.
 */
export class Maintenance {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly db: Database.Database) {}

  /** After a write: runs once writes have stopped for a moment. */
  schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.run();
    }, MAINTENANCE_DELAY_MS);
    this.timer.unref();
  }

  /** Before closing: runs now, in place of a scheduled run. */
  runNow(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.run();
  }

  private run(): void {
    if (!this.db.open || this.db.inTransaction) return;
    try {
      updateSearchIndex(this.db);
      this.db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Another process holds the write lock: the next search or quiet moment catches up.
    }
  }
}
