/**
 * opencode's SQLite database, `opencode.db` (`opencode-<channel>.db` for other release
 * channels), as its Drizzle schema lays it out (docs/DESIGN.md#importing-from-other-agents):
 * a `session` row per session (its Session.Info spread over columns), a `message` row per
 * message and a `part` row per part, each of those with its object in a JSON `data` column
 * less the ids the row's columns hold. Each session is read back into the shape
 * `opencode export` prints and read by opencode.ts, so the same session from either carrier
 * has the same keys.
 */
import type Database from 'better-sqlite3';
import { databaseUnits } from './db-snapshot';
import { MAX_ENTRY_DEPTH, emptyParse, isRecord, nestedTooDeeply, type ParsedFile } from './imported';
import { readOpencodeSession } from './opencode';
import { contentHash, type ImportUnit, type UnitsFound } from './units';

/** What this importer reads; a newer opencode may add columns, not take these away. */
const REQUIRED_COLUMNS = {
  session: ['id', 'title', 'directory', 'time_created', 'time_updated'],
  message: ['id', 'session_id', 'time_created', 'time_updated', 'data'],
  part: ['id', 'message_id', 'session_id', 'time_updated', 'data'],
} as const;

/** Session columns read when there, for what Session.Info keeps in them. */
const OPTIONAL_SESSION_COLUMNS = ['parent_id', 'revert'] as const;

export function isOpencodeDatabase(file: string): boolean {
  return /^opencode(-[A-Za-z0-9._-]+)?\.db$/.test(file.split(/[\\/]/).pop() ?? '');
}

interface SessionRow {
  id: unknown;
  title: unknown;
  directory: unknown;
  time_created: unknown;
  time_updated: unknown;
  parent_id?: unknown;
  revert?: unknown;
}

interface DataRow {
  id: unknown;
  time_created?: unknown;
  message_id?: unknown;
  data: unknown;
}

/** The database's sessions, one unit each, keyed `<file>#<session id>`. */
export function opencodeDatabaseUnits(file: string): Promise<UnitsFound> {
  return databaseUnits(file, 'an opencode', REQUIRED_COLUMNS, ({ db, columns }) => {
    const optional = OPTIONAL_SESSION_COLUMNS.filter((name) => columns.get('session')?.has(name));
    const sessions = db
      .prepare(
        `SELECT s.id, s.title, s.directory, s.time_created, s.time_updated${optional.map((name) => `, s.${name}`).join('')},
           coalesce(m.rows, 0) + coalesce(p.rows, 0) AS rows,
           max(s.time_updated, coalesce(m.updated, 0), coalesce(p.updated, 0)) AS updated
         FROM session s
         LEFT JOIN (SELECT session_id, count(*) AS rows, max(time_updated) AS updated FROM message GROUP BY session_id) m ON m.session_id = s.id
         LEFT JOIN (SELECT session_id, count(*) AS rows, max(time_updated) AS updated FROM part GROUP BY session_id) p ON p.session_id = s.id
         ORDER BY s.time_created, s.id`,
      )
      .all() as (SessionRow & { rows: number; updated: unknown })[];
    return sessions
      .filter((row): row is SessionRow & { id: string; rows: number; updated: unknown } => typeof row.id === 'string')
      .map((row) => sessionUnit(db, file, row, { size: row.rows, mtimeMs: typeof row.updated === 'number' ? row.updated : 0 }));
  });
}

function sessionUnit(db: Database.Database, file: string, row: SessionRow & { id: string }, stamp: { size: number; mtimeMs: number }): ImportUnit {
  const key = `${file}#${row.id}`;
  return {
    key,
    stamp: async () => stamp,
    load: async () => {
      const parsed = emptyParse();
      const hash = contentHash();
      hash.add(JSON.stringify([row.title, row.directory, row.time_created, row.time_updated, row.parent_id, row.revert]));
      const messages = db.prepare('SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id').all(row.id) as DataRow[];
      const parts = db.prepare('SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id').all(row.id) as DataRow[];
      const partsOf = new Map<string, Record<string, unknown>[]>();
      for (const part of parts) {
        const data = rowData(part, 'part', file, parsed, hash);
        if (!data || typeof part.message_id !== 'string') continue;
        const list = partsOf.get(part.message_id) ?? [];
        list.push({ ...data, id: part.id, messageID: part.message_id });
        partsOf.set(part.message_id, list);
      }
      const doc = {
        info: sessionInfo(row),
        messages: messages.flatMap((message) => {
          const data = rowData(message, 'message', file, parsed, hash);
          if (!data) return [];
          const time = isRecord(data.time) ? data.time : { created: message.time_created };
          return [{ info: { ...data, time, id: message.id, sessionID: row.id }, parts: partsOf.get(message.id as string) ?? [] }];
        }),
      };
      return {
        hash: hash.digest(),
        parse: () => {
          readOpencodeSession(doc, key, parsed);
          return parsed;
        },
      };
    },
  };
}

/** Session.Info as opencode builds it from its row. */
function sessionInfo(row: SessionRow & { id: string }): Record<string, unknown> {
  return {
    id: row.id,
    title: row.title,
    directory: row.directory,
    time: { created: row.time_created, updated: row.time_updated },
    ...(typeof row.parent_id === 'string' ? { parentID: row.parent_id } : {}),
    ...(typeof row.revert === 'string' ? { revert: jsonObject(row.revert) } : {}),
  };
}

/** A row's `data` object; a row whose data is not a JSON object (or nests too deeply) is refused with its table and id. */
function rowData(row: DataRow, table: string, file: string, parsed: ParsedFile, hash: ReturnType<typeof contentHash>): Record<string, unknown> | undefined {
  const where = `${file}: table ${table}, id ${typeof row.id === 'string' ? row.id : JSON.stringify(row.id)}`;
  if (typeof row.id !== 'string' || typeof row.data !== 'string') {
    parsed.refused.push(`${where}: no text id and data, skipped`);
    return undefined;
  }
  hash.add(row.id);
  hash.add(row.data);
  const data = jsonObject(row.data);
  if (data === undefined) parsed.refused.push(`${where}: its data is not a JSON object, skipped`);
  else if (nestedTooDeeply(data)) parsed.refused.push(`${where}: nested deeper than ${MAX_ENTRY_DEPTH} levels, skipped`);
  else return data;
  return undefined;
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
