import type Database from 'better-sqlite3';

/**
 * The schema of loom.db as an ordered list of migrations. Each one runs in its own
 * transaction together with the bump of `schema_version`, so a crash mid-migration leaves
 * the previous version intact. Never edit a released migration: append a new one.
 */
export interface Migration {
  version: number;
  description: string;
  up(db: Database.Database): void;
}

/** porter: "migrations" finds "migration"; unicode61 without diacritics: "cafe" finds "café". */
const TOKENIZER = `tokenize = 'porter unicode61 remove_diacritics 2'`;

/**
 * Transcript rows are keyed `session_pk * 2^24 + seq`: a session's messages sit together
 * in the table (opening a long session reads neighbouring pages) and a full-text hit names
 * its session by arithmetic on the rowid, without reading the row.
 */
export const SEQ_BITS = 24;
export const SEQ_LIMIT = 2 ** SEQ_BITS;

const V1_SESSIONS = `
  -- pk is the internal key every other table refers to (and the rowid of sessions_fts,
  -- which an explicit INTEGER PRIMARY KEY keeps stable across VACUUM); id is the opaque
  -- public id.
  CREATE TABLE sessions (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    parent_id TEXT,
    title TEXT,
    summary TEXT,
    status TEXT NOT NULL CHECK (status IN ('active', 'saved', 'interrupted')),
    archived INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0,
    model TEXT,
    cwd TEXT,
    plan TEXT NOT NULL
  );
  -- Listing is "newest updated first, archived only on request": both shapes get an index
  -- in listing order (the implicit trailing pk breaks ties).
  CREATE INDEX sessions_by_archived_updated ON sessions (archived, updated_at);
  CREATE INDEX sessions_by_updated ON sessions (updated_at);

  CREATE VIRTUAL TABLE sessions_fts USING fts5 (
    title, summary, content = 'sessions', content_rowid = 'pk', ${TOKENIZER}
  );
  CREATE TRIGGER sessions_fts_insert AFTER INSERT ON sessions BEGIN
    INSERT INTO sessions_fts (rowid, title, summary) VALUES (new.pk, new.title, new.summary);
  END;
  CREATE TRIGGER sessions_fts_delete AFTER DELETE ON sessions BEGIN
    INSERT INTO sessions_fts (sessions_fts, rowid, title, summary)
      VALUES ('delete', old.pk, old.title, old.summary);
  END;
  -- Only title and summary: appends bump updated_at/message_count without touching the index.
  CREATE TRIGGER sessions_fts_update AFTER UPDATE OF title, summary ON sessions BEGIN
    INSERT INTO sessions_fts (sessions_fts, rowid, title, summary)
      VALUES ('delete', old.pk, old.title, old.summary);
    INSERT INTO sessions_fts (rowid, title, summary) VALUES (new.pk, new.title, new.summary);
  END;
`;

const V1_TRANSCRIPT = `
  -- Every message ever, in order, one column per chat-format field.
  CREATE TABLE transcript (
    id INTEGER PRIMARY KEY,
    session_pk INTEGER NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    content TEXT,
    tool_calls TEXT,
    tool_call_id TEXT,
    tool_text TEXT,
    CHECK (id = session_pk * ${SEQ_LIMIT} + seq AND seq >= 0 AND seq < ${SEQ_LIMIT})
  );
  CREATE INDEX transcript_by_session ON transcript (session_pk);

  -- System prompts stay out of the index: they are the same in every session, so they
  -- would make every session match words like "file".
  CREATE VIRTUAL TABLE transcript_fts USING fts5 (
    content, tool_text, content = 'transcript', content_rowid = 'id', ${TOKENIZER}
  );
  CREATE TRIGGER transcript_fts_insert AFTER INSERT ON transcript WHEN new.role <> 'system' BEGIN
    INSERT INTO transcript_fts (rowid, content, tool_text) VALUES (new.id, new.content, new.tool_text);
  END;
  CREATE TRIGGER transcript_fts_delete AFTER DELETE ON transcript WHEN old.role <> 'system' BEGIN
    INSERT INTO transcript_fts (transcript_fts, rowid, content, tool_text)
      VALUES ('delete', old.id, old.content, old.tool_text);
  END;

  -- The working context: each position points at a transcript message (no duplicated
  -- bodies) or, for a message that exists only in the context such as a compaction
  -- summary, holds it inline as JSON.
  CREATE TABLE context (
    session_pk INTEGER NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    transcript_seq INTEGER,
    message TEXT,
    PRIMARY KEY (session_pk, position),
    CHECK ((transcript_seq IS NULL) <> (message IS NULL))
  ) WITHOUT ROWID;
`;

const V1_RECORDS = `
  CREATE TABLE compactions (
    id INTEGER PRIMARY KEY,
    session_pk INTEGER NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
    at TEXT NOT NULL,
    before_tokens INTEGER NOT NULL,
    after_tokens INTEGER NOT NULL,
    summary TEXT NOT NULL
  );
  CREATE INDEX compactions_by_session ON compactions (session_pk, id);

  CREATE TABLE usage (
    session_pk INTEGER NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('chat', 'compaction', 'summary')),
    calls INTEGER NOT NULL DEFAULT 0,
    prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (session_pk, kind)
  ) WITHOUT ROWID;

  CREATE TABLE leases (
    session_pk INTEGER PRIMARY KEY REFERENCES sessions (pk) ON DELETE CASCADE,
    owner TEXT NOT NULL,
    pid INTEGER NOT NULL,
    hostname TEXT NOT NULL,
    heartbeat_at TEXT NOT NULL
  );
`;

const V1_MEMORIES = `
  CREATE TABLE memories (
    id INTEGER PRIMARY KEY,
    scope TEXT CHECK (scope IN ('global', 'project')),
    project TEXT,
    content TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE VIRTUAL TABLE memories_fts USING fts5 (
    content, content = 'memories', content_rowid = 'id', ${TOKENIZER}
  );
  CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, content) VALUES (new.id, new.content);
  END;
  CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.id, old.content);
  END;
  CREATE TRIGGER memories_fts_update AFTER UPDATE OF content ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.id, old.content);
    INSERT INTO memories_fts (rowid, content) VALUES (new.id, new.content);
  END;
`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'sessions, transcript, context, compactions, usage, leases, memories, full-text indexes',
    up(db) {
      db.exec(V1_SESSIONS + V1_TRANSCRIPT + V1_RECORDS + V1_MEMORIES);
    },
  },
];

export const SCHEMA_VERSION_TABLE = 'schema_version';

/** The version recorded in the database; 0 for a database Loom has never written. */
export function readSchemaVersion(db: Database.Database): number {
  const table = db
    .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`)
    .get(SCHEMA_VERSION_TABLE);
  if (!table) return 0;
  const row = db.prepare(`SELECT version FROM ${SCHEMA_VERSION_TABLE}`).get() as { version: number } | undefined;
  return row?.version ?? 0;
}

export function latestVersion(migrations: readonly Migration[]): number {
  return migrations.length ? migrations[migrations.length - 1].version : 0;
}

/**
 * Applies the migrations newer than the database, each in an IMMEDIATE transaction that
 * re-reads the version, so two processes opening the same old database migrate it once.
 * `beforeEach(version)` runs outside any transaction (VACUUM INTO cannot run inside one).
 */
export function applyMigrations(
  db: Database.Database,
  migrations: readonly Migration[],
  beforeEach: (currentVersion: number) => void,
): void {
  for (const migration of migrations) {
    if (readSchemaVersion(db) >= migration.version) continue;
    beforeEach(readSchemaVersion(db));
    const step = db.transaction(() => {
      if (readSchemaVersion(db) >= migration.version) return;
      migration.up(db);
      db.exec(`CREATE TABLE IF NOT EXISTS ${SCHEMA_VERSION_TABLE} (version INTEGER NOT NULL)`);
      db.exec(`DELETE FROM ${SCHEMA_VERSION_TABLE}`);
      db.prepare(`INSERT INTO ${SCHEMA_VERSION_TABLE} (version) VALUES (?)`).run(migration.version);
    });
    step.immediate();
  }
}
