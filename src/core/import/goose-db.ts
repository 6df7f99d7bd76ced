/**
 * goose's SQLite database, `sessions.db` (docs/DESIGN.md#importing-from-other-agents): a
 * `sessions` row per session (name, or `description` before schema 4; working_dir; created_at
 * and updated_at as SQLite times; the token counts) and a `messages` row per message (role,
 * content_json, created_timestamp in seconds, metadata_json from schema 3), in the order
 * goose reads them back: by `timestamp`, then row id.
 */
import type Database from 'better-sqlite3';
import { databaseUnits } from './db-snapshot';
import { gooseUsage, readGooseSession } from './goose';
import { MAX_ENTRY_DEPTH, emptyParse, isRecord, isoTime, nestedTooDeeply, str, type ParsedFile } from './imported';
import { contentHash, type ImportUnit, type UnitsFound } from './units';

const REQUIRED_COLUMNS = {
  sessions: ['id', 'working_dir', 'created_at', 'updated_at'],
  messages: ['id', 'session_id', 'role', 'content_json', 'created_timestamp'],
} as const;

/** Session columns read when there: what older or newer schemas have or lack. */
const OPTIONAL_SESSION_COLUMNS = ['name', 'description', 'input_tokens', 'output_tokens', 'accumulated_input_tokens', 'accumulated_output_tokens'] as const;

type SessionRow = Record<string, unknown> & { id: string };

interface MessageRow {
  id: unknown;
  role: unknown;
  content_json: unknown;
  created_timestamp: unknown;
  metadata_json?: unknown;
}

/** The database's sessions, one unit each, keyed `<file>#<session id>`. */
export function gooseDatabaseUnits(file: string): Promise<UnitsFound> {
  return databaseUnits(file, 'a goose', REQUIRED_COLUMNS, ({ db, columns }) => {
    const optional = OPTIONAL_SESSION_COLUMNS.filter((name) => columns.get('sessions')?.has(name));
    const messages = columns.get('messages') as Set<string>;
    const query = {
      metadata: messages.has('metadata_json') ? ', metadata_json' : '',
      order: messages.has('timestamp') ? 'timestamp, id' : 'id',
    };
    // A message added or a conversation rewritten gives new row ids: the largest one, with
    // the session's update time, is the stamp.
    const rows = db
      .prepare(
        `SELECT s.id, s.working_dir, s.created_at, s.updated_at${optional.map((name) => `, s.${name}`).join('')}, m.last_row
         FROM sessions s LEFT JOIN (SELECT session_id, max(id) AS last_row FROM messages GROUP BY session_id) m ON m.session_id = s.id
         ORDER BY s.created_at, s.id`,
      )
      .all() as (Record<string, unknown> & { last_row: unknown })[];
    const units = rows
      .filter((row): row is SessionRow & { last_row: unknown } => typeof row.id === 'string')
      .map((row) =>
        sessionUnit(db, file, row, query, {
          size: typeof row.last_row === 'number' ? row.last_row : 0,
          mtimeMs: Date.parse(isoTime(sqliteTime(row.updated_at)) ?? '') || 0,
        }),
      );
    return units;
  });
}

function sessionUnit(
  db: Database.Database,
  file: string,
  row: SessionRow,
  query: { metadata: string; order: string },
  stamp: { size: number; mtimeMs: number },
): ImportUnit {
  const key = `${file}#${row.id}`;
  return {
    key,
    stamp: async () => stamp,
    load: async () => {
      const parsed = emptyParse();
      const hash = contentHash();
      hash.add(JSON.stringify(row));
      const rows = db
        .prepare(`SELECT id, role, content_json, created_timestamp${query.metadata} FROM messages WHERE session_id = ? ORDER BY ${query.order}`)
        .all(row.id) as MessageRow[];
      const messages = rows.flatMap((message) => {
        const value = messageOf(message, `${file}: table messages, id ${String(message.id)}`, parsed, hash);
        return value ? [{ value, where: `${file}: table messages, id ${String(message.id)}` }] : [];
      });
      return {
        hash: hash.digest(),
        parse: () => {
          readGooseSession(
            {
              id: row.id,
              name: str(row.name) || str(row.description) || null,
              workingDir: str(row.working_dir) ?? null,
              createdAt: isoTime(sqliteTime(row.created_at)),
              updatedAt: isoTime(sqliteTime(row.updated_at)),
              usage: gooseUsage(row),
              messages,
            },
            parsed,
          );
          return parsed;
        },
      };
    },
  };
}

/** A row as a Message; one whose content is not a JSON list (or nests too deeply) is refused with its table and id. */
function messageOf(row: MessageRow, where: string, parsed: ParsedFile, hash: ReturnType<typeof contentHash>): Record<string, unknown> | undefined {
  if (typeof row.content_json !== 'string') {
    parsed.refused.push(`${where}: no content_json text, skipped`);
    return undefined;
  }
  hash.add(row.content_json);
  hash.add(typeof row.metadata_json === 'string' ? row.metadata_json : '');
  const content = json(row.content_json);
  if (!Array.isArray(content)) parsed.refused.push(`${where}: its content_json is not a JSON list, skipped`);
  else if (nestedTooDeeply(content)) parsed.refused.push(`${where}: nested deeper than ${MAX_ENTRY_DEPTH} levels, skipped`);
  else {
    const metadata = typeof row.metadata_json === 'string' ? json(row.metadata_json) : undefined;
    return {
      role: row.role,
      content,
      ...(typeof row.created_timestamp === 'number' ? { created: row.created_timestamp } : {}),
      ...(isRecord(metadata) && !nestedTooDeeply(metadata) ? { metadata } : {}),
    };
  }
  return undefined;
}

/** SQLite's `YYYY-MM-DD HH:MM:SS` (UTC, what CURRENT_TIMESTAMP and datetime('now') write) as ISO; RFC 3339 as it is. */
function sqliteTime(value: unknown): unknown {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?$/.test(value) ? `${value.replace(' ', 'T')}Z` : value;
}

function json(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
