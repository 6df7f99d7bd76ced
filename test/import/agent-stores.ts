/**
 * The other agents' own stores, made by these tests: SQLite files in opencode's schema
 * (its Drizzle tables session / message / part, from packages/opencode/src/session/session.sql.ts)
 * and goose's (sessions / messages as session_manager.rs creates them, schema 5), opencode's
 * older storage tree, goose's legacy JSONL and export. Rows and files are written from the
 * same sessions the export fixtures describe, so each carrier can be compared with the others.
 */
import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { openSqlite } from '../../src/core/store/sqlite';
import { writeFile } from './fixtures';

type Json = Record<string, unknown>;
export interface OpencodeExport {
  info: Json;
  messages: { info: Json; parts: Json[] }[];
}

const OPENCODE_TABLES = `
  CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL);
  CREATE TABLE session (
    id text PRIMARY KEY, project_id text NOT NULL REFERENCES project(id) ON DELETE CASCADE, workspace_id text, parent_id text,
    slug text NOT NULL, directory text NOT NULL, path text, title text NOT NULL, version text NOT NULL, share_url text,
    summary_additions integer, summary_deletions integer, summary_files integer, summary_diffs text,
    cost real DEFAULT 0 NOT NULL, tokens_input integer DEFAULT 0 NOT NULL, tokens_output integer DEFAULT 0 NOT NULL,
    revert text, permission text, agent text, model text,
    time_created integer NOT NULL, time_updated integer NOT NULL, time_compacting integer, time_archived integer
  );
  CREATE INDEX session_project_idx ON session (project_id);
  CREATE TABLE message (
    id text PRIMARY KEY, session_id text NOT NULL REFERENCES session(id) ON DELETE CASCADE,
    time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL
  );
  CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
  CREATE TABLE part (
    id text PRIMARY KEY, message_id text NOT NULL REFERENCES message(id) ON DELETE CASCADE, session_id text NOT NULL,
    time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL
  );
  CREATE INDEX part_message_id_id_idx ON part (message_id, id);
  CREATE INDEX part_session_idx ON part (session_id);
`;

/** A new database at `file` in WAL mode, as the agents keep theirs; the caller closes it (or keeps it open, as a running agent does). */
export function agentDatabase(file: string, tables: string): Database.Database {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = openSqlite(file);
  db.pragma('journal_mode = WAL');
  db.exec(tables);
  return db;
}

export function opencodeDatabase(file: string): Database.Database {
  const db = agentDatabase(file, OPENCODE_TABLES);
  db.prepare('INSERT INTO project VALUES (?, ?, 0, 0)').run('global', '/');
  return db;
}

const omit = (value: Json, ...keys: string[]) => Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key)));
const created = (info: Json, fallback = 0) => ((info.time as Json | undefined)?.created as number | undefined) ?? fallback;

/** The export's session as opencode stores it: a session row, a message row per message, a part row per part. */
export function insertOpencodeSession(db: Database.Database, { info, messages }: OpencodeExport): void {
  const time = info.time as { created: number; updated: number };
  db.prepare(
    `INSERT INTO session (id, project_id, slug, directory, title, version, revert, time_created, time_updated)
     VALUES (?, 'global', 'slug', ?, ?, ?, ?, ?, ?)`,
  ).run(info.id, info.directory, info.title, info.version ?? '1.15.7', info.revert ? JSON.stringify(info.revert) : null, time.created, time.updated);
  for (const message of messages) insertOpencodeMessage(db, info.id as string, message);
}

export function insertOpencodeMessage(db: Database.Database, sessionId: string, { info, parts }: { info: Json; parts: Json[] }): void {
  const at = created(info);
  db.prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)').run(
    info.id,
    sessionId,
    at,
    at,
    JSON.stringify(omit(info, 'id', 'sessionID')),
  );
  for (const part of parts)
    db.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)').run(
      part.id,
      info.id,
      sessionId,
      at,
      at,
      JSON.stringify(omit(part, 'id', 'sessionID', 'messageID')),
    );
}

/** The export's session as opencode 1.x kept it before SQLite, under `<storage>`. */
export function writeOpencodeStorage(storage: string, { info, messages }: OpencodeExport): string {
  const sessionFile = writeFile(path.join(storage, 'session', 'global', `${String(info.id)}.json`), JSON.stringify(info));
  for (const { info: message, parts } of messages) {
    writeFile(path.join(storage, 'message', String(info.id), `${String(message.id)}.json`), JSON.stringify({ ...message, sessionID: info.id }));
    for (const part of parts)
      writeFile(
        path.join(storage, 'part', String(message.id), `${String(part.id)}.json`),
        JSON.stringify({ ...part, sessionID: info.id, messageID: message.id }),
      );
  }
  return sessionFile;
}

// ---- goose ----

const GOOSE_TABLES = `
  CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
  INSERT INTO schema_version (version) VALUES (5);
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '', user_set_name BOOLEAN DEFAULT FALSE,
    session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, extension_data TEXT DEFAULT '{}',
    total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
    accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
    schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT
  );
  CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
    content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    tokens INTEGER, metadata_json TEXT
  );
  CREATE INDEX idx_messages_session ON messages(session_id);
`;

export function gooseDatabase(file: string): Database.Database {
  return agentDatabase(file, GOOSE_TABLES);
}

/** A goose Message: role, created (seconds), content items, visibility. */
export interface GooseMessage {
  role: 'user' | 'assistant';
  created: number;
  content: Json[];
  metadata?: { userVisible: boolean; agentVisible: boolean };
}

export const gooseText = (text: string): Json => ({ type: 'text', text });
export const gooseCall = (id: string, name: string, args: Json): Json => ({
  type: 'toolRequest',
  id,
  toolCall: { status: 'success', value: { name, arguments: args } },
});
export const gooseResult = (id: string, text: string): Json => ({
  type: 'toolResponse',
  id,
  toolResult: { status: 'success', value: { content: [{ type: 'text', text }], isError: false } },
});

const T0 = Date.parse('2026-02-03T09:00:00Z') / 1000;

/** A goose session: a prompt, a shell call and its result, the answer, and a call left unanswered. */
export function gooseMessages(): GooseMessage[] {
  return [
    { role: 'user', created: T0, content: [gooseText('How many otters are in the river?')] },
    { role: 'assistant', created: T0 + 1, content: [gooseText('Counting.'), gooseCall('call_count', 'developer__shell', { command: 'wc -l otters.txt' })] },
    { role: 'user', created: T0 + 2, content: [gooseResult('call_count', '17 otters.txt')] },
    { role: 'assistant', created: T0 + 3, content: [gooseText('There are 17 otters.'), { type: 'thinking', thinking: 'done', signature: 'x' }] },
    { role: 'assistant', created: T0 + 4, content: [gooseCall('call_lost', 'developer__shell', { command: 'sleep 99' })] },
  ];
}

export interface GooseSessionFixture {
  id: string;
  name: string;
  workingDir: string;
  createdAt: string;
  updatedAt: string;
  messages: GooseMessage[];
}

export function otterSession(messages = gooseMessages()): GooseSessionFixture {
  return {
    id: '20260203_1',
    name: 'Otter census',
    workingDir: '/home/ada/river',
    createdAt: '2026-02-03 09:00:00',
    updatedAt: '2026-02-03 09:00:04',
    messages,
  };
}

export function insertGooseSession(db: Database.Database, session: GooseSessionFixture): void {
  db.prepare(
    `INSERT INTO sessions (id, name, working_dir, created_at, updated_at, accumulated_input_tokens, accumulated_output_tokens) VALUES (?, ?, ?, ?, ?, 1200, 300)`,
  ).run(session.id, session.name, session.workingDir, session.createdAt, session.updatedAt);
  for (const message of session.messages) insertGooseMessage(db, session.id, message);
}

export function insertGooseMessage(db: Database.Database, sessionId: string, message: GooseMessage): void {
  db.prepare('INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json) VALUES (?, ?, ?, ?, ?)').run(
    sessionId,
    message.role,
    JSON.stringify(message.content),
    message.created,
    JSON.stringify(message.metadata ?? { userVisible: true, agentVisible: true }),
  );
}

/** The legacy file: the SessionMetadata line, then one Message a line. */
export function gooseLegacyJsonl(session: GooseSessionFixture): string {
  const metadata = { working_dir: session.workingDir, description: session.name, message_count: session.messages.length, accumulated_input_tokens: 1200 };
  return [metadata, ...session.messages].map((line) => JSON.stringify(line)).join('\n') + '\n';
}

/** What `goose session export --format json` prints. */
export function gooseExport(session: GooseSessionFixture): string {
  return JSON.stringify(
    {
      id: session.id,
      working_dir: session.workingDir,
      name: session.name,
      user_set_name: false,
      session_type: 'user',
      created_at: `${session.createdAt.replace(' ', 'T')}Z`,
      updated_at: `${session.updatedAt.replace(' ', 'T')}Z`,
      extension_data: {},
      accumulated_input_tokens: 1200,
      accumulated_output_tokens: 300,
      conversation: session.messages,
      message_count: session.messages.length,
    },
    null,
    2,
  );
}

/** Every file under `folder` with its bytes and mtime: what must be the same after an import. */
export function folderState(folder: string): Map<string, { bytes: string; mtimeMs: number }> {
  const state = new Map<string, { bytes: string; mtimeMs: number }>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else state.set(full, { bytes: fs.readFileSync(full).toString('base64'), mtimeMs: fs.statSync(full).mtimeMs });
    }
  };
  walk(folder);
  state.set(folder, { bytes: '', mtimeMs: fs.statSync(folder).mtimeMs });
  return state;
}
