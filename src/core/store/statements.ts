import type Database from 'better-sqlite3';

const caches = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/**
 * The statement for `source` on this connection, compiled on first use and reused after:
 * the store, its search and its leases run the same few statements over and over.
 */
export function prepared(db: Database.Database, source: string): Database.Statement {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map<string, Database.Statement>()));
  let statement = cache.get(source);
  if (!statement) cache.set(source, (statement = db.prepare(source)));
  return statement;
}
