import type Database from 'better-sqlite3';
import { FAMILIES } from './migration-v20';
import { deriveContexts } from './migration-v3';
import { CHILD_LINKS } from './children';
import { SESSION_CHANGES, SESSION_CHANGES_V13, SESSION_CHANGES_V14, SESSION_CHANGES_V16 } from './session-changes';
import { SYNC_TABLES, SYNC_TABLES_V19 } from './sync-tables';
import { TRASH } from './trash';

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

const V1_MESSAGES = `
  -- Message bodies, one column per chat-format field. Bodies are immutable and shared:
  -- a fork copies the small transcript and context rows that point at them, never the
  -- bodies, so forking a long session is cheap and nothing written later can cross
  -- (every change adds rows). in_transcript: appended to a transcript (vs. a message that
  -- only ever lived in a working context, such as a compaction summary).
  CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    content TEXT,
    tool_calls TEXT,
    tool_call_id TEXT,
    tool_text TEXT,
    in_transcript INTEGER NOT NULL CHECK (in_transcript IN (0, 1))
  );

  -- Every message ever, in order; clustered by session, so a session reads as one range.
  CREATE TABLE transcript (
    session_pk INTEGER NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    message_id INTEGER NOT NULL REFERENCES messages (id),
    PRIMARY KEY (session_pk, seq)
  ) WITHOUT ROWID;
  CREATE INDEX transcript_by_message ON transcript (message_id);

  -- The working context sent to the model, by position.
  CREATE TABLE context (
    session_pk INTEGER NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    message_id INTEGER NOT NULL REFERENCES messages (id),
    PRIMARY KEY (session_pk, position)
  ) WITHOUT ROWID;
  CREATE INDEX context_by_message ON context (message_id);

  -- A body goes when the last transcript or context row pointing at it goes.
  CREATE TRIGGER transcript_release AFTER DELETE ON transcript BEGIN
    DELETE FROM messages WHERE id = old.message_id
      AND NOT EXISTS (SELECT 1 FROM transcript WHERE message_id = old.message_id)
      AND NOT EXISTS (SELECT 1 FROM context WHERE message_id = old.message_id);
  END;
  CREATE TRIGGER context_release AFTER DELETE ON context BEGIN
    DELETE FROM messages WHERE id = old.message_id
      AND NOT EXISTS (SELECT 1 FROM transcript WHERE message_id = old.message_id)
      AND NOT EXISTS (SELECT 1 FROM context WHERE message_id = old.message_id);
  END;

  -- Full-text index over transcript messages. System prompts stay out: they are the same
  -- in every session and would make every session match words like "file".
  -- Appends only queue a message in search_backlog; the index catches up before each
  -- search and when the store is idle, so an append never pays for FTS segment merges.
  CREATE VIRTUAL TABLE messages_fts USING fts5 (
    content, tool_text, content = 'messages', content_rowid = 'id', ${TOKENIZER}
  );
  CREATE TABLE search_backlog (message_id INTEGER PRIMARY KEY);
  CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages
    WHEN old.in_transcript = 1 AND old.role <> 'system' BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content, tool_text)
      SELECT 'delete', old.id, old.content, old.tool_text
       WHERE NOT EXISTS (SELECT 1 FROM search_backlog WHERE message_id = old.id);
    DELETE FROM search_backlog WHERE message_id = old.id;
  END;
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

/**
 * Version 2: where in the transcript each compaction happened (its length then), so a
 * reloaded UI can put the marker between the right messages. NULL when unknown.
 */
function addCompactionTranscriptIndex(db: Database.Database): void {
  db.exec('ALTER TABLE compactions ADD COLUMN transcript_index INTEGER');
  const update = db.prepare('UPDATE compactions SET transcript_index = ? WHERE id = ?');
  for (const row of locateRecordedCompactions(db)) update.run(row.transcript_index, row.id);
}

/**
 * Older rows can be placed only while the context still holds the compaction's boundary
 * message (the context-only body containing its summary; an earlier compaction's goes when
 * a later one summarises it away). Message ids only grow, so the transcript messages
 * appended before the compaction are exactly those with a smaller id than that body. For
 * a session imported from a file, this is at most its transcript length at the import.
 */
function locateRecordedCompactions(db: Database.Database): { id: number; transcript_index: number }[] {
  return db
    .prepare(
      `WITH boundary AS (
         SELECT c.id, c.session_pk,
                (SELECT MAX(m.id) FROM context x JOIN messages m ON m.id = x.message_id
                  WHERE x.session_pk = c.session_pk AND m.in_transcript = 0 AND instr(m.content, c.summary) > 0) AS body_id
           FROM compactions c WHERE c.summary <> ''
       )
       SELECT b.id, (SELECT count(*) FROM transcript t WHERE t.session_pk = b.session_pk AND t.message_id < b.body_id) AS transcript_index
         FROM boundary b WHERE b.body_id IS NOT NULL`,
    )
    .all() as { id: number; transcript_index: number }[];
}

/**
 * Version 5 (docs/DESIGN.md#per-message-facts): a message's facts as a small JSON object
 * (NULL for messages appended before; bodies are shared by forks, and so are their facts),
 * and the session's model changes, placed in the transcript like compactions.
 */
const V5_MESSAGE_FACTS_AND_MODEL_CHANGES = `
  ALTER TABLE messages ADD COLUMN facts TEXT;
  CREATE TABLE model_changes (
    id INTEGER PRIMARY KEY,
    session_pk INTEGER NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
    at TEXT NOT NULL,
    from_model TEXT,
    to_model TEXT NOT NULL,
    transcript_index INTEGER NOT NULL
  );
  CREATE INDEX model_changes_by_session ON model_changes (session_pk, id);
`;

/** What `loom --import-from` remembers (docs/DESIGN.md#importing-from-other-agents), so a re-import adds nothing. */
const IMPORT_RECORDS = `
  -- One row per source file read: unchanged size and mtime skip it unread, an unchanged hash skips it unparsed.
  CREATE TABLE IF NOT EXISTS import_files (
    source TEXT NOT NULL,
    path TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ms REAL NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (source, path)
  );
  -- One row per Loom session an import wrote: the source's session and the keys of the
  -- entries its transcript holds (root to tip, newline-separated), and the transcript
  -- length then, so a grown session is appended to only if nobody wrote to it since.
  CREATE TABLE IF NOT EXISTS import_branches (
    session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    source_id TEXT NOT NULL,
    keys TEXT NOT NULL,
    message_count INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS import_branches_by_source ON import_branches (source, source_id);
`;

/** Per server and model, one figure per source (model/context-window.ts resolves them); NULL: the server was asked and said nothing. */
const MODEL_WINDOWS = `
  CREATE TABLE IF NOT EXISTS model_windows (
    base_url TEXT NOT NULL,
    model TEXT NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('server', 'setting', 'refusal')),
    tokens INTEGER,
    at TEXT NOT NULL,
    PRIMARY KEY (base_url, model, source)
  ) WITHOUT ROWID;
`;

/** A pinned transcript message (seq) or a pinned note (note): carried whole through every compaction. */
const PINS = `
  CREATE TABLE IF NOT EXISTS pins (
    id INTEGER PRIMARY KEY,
    session_pk INTEGER NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
    seq INTEGER,
    note TEXT,
    at TEXT NOT NULL,
    CHECK ((seq IS NULL) <> (note IS NULL))
  );
  CREATE INDEX IF NOT EXISTS pins_by_session ON pins (session_pk, id);
`;

/**
 * What a compaction did, for the view of what was kept and dropped and for undo: the
 * transcript range it summarised ([summarised_from, kept_from)), its requests, the carried
 * message, the context start it wrote, and when it was undone. NULL for older records.
 */
const COMPACTION_DETAILS = `
  ALTER TABLE compactions ADD COLUMN summarised_from INTEGER;
  ALTER TABLE compactions ADD COLUMN kept_from INTEGER;
  ALTER TABLE compactions ADD COLUMN steps INTEGER;
  ALTER TABLE compactions ADD COLUMN carried TEXT;
  ALTER TABLE compactions ADD COLUMN start_id INTEGER;
  ALTER TABLE compactions ADD COLUMN undone_at TEXT;
`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'sessions, messages, transcript, context, compactions, usage, leases, memories, full-text indexes',
    up(db) {
      db.exec(V1_SESSIONS + V1_MESSAGES + V1_RECORDS + V1_MEMORIES);
    },
  },
  {
    version: 2,
    description: 'compactions.transcript_index: the transcript length when each compaction was recorded',
    up: addCompactionTranscriptIndex,
  },
  {
    version: 3,
    description: "forks share their parent's transcript rows; the working context is derived (context_starts), the context table goes",
    up: deriveContexts,
  },
  {
    version: 4,
    description: 'messages.stopped: 1 for a reply the user stopped, kept with what had streamed',
    up(db) {
      db.exec('ALTER TABLE messages ADD COLUMN stopped INTEGER NOT NULL DEFAULT 0');
    },
  },
  {
    version: 5,
    description: 'messages.facts: when a message came and, for a reply, its model, tokens, cost and speed; model_changes: each session model change',
    up(db) {
      db.exec(V5_MESSAGE_FACTS_AND_MODEL_CHANGES);
    },
  },
  {
    version: 6,
    description: "messages.images: a user message's attached images (a JSON array of data URLs), null for every older row",
    up(db) {
      db.exec('ALTER TABLE messages ADD COLUMN images TEXT');
    },
  },
  {
    version: 7,
    description: 'the session list pages by (updated_at, id): its indexes end with id, replacing the ones ending with the implicit pk',
    up(db) {
      db.exec(`
        CREATE INDEX IF NOT EXISTS sessions_page_unarchived ON sessions (archived, updated_at, id);
        CREATE INDEX IF NOT EXISTS sessions_page_all ON sessions (updated_at, id);
        DROP INDEX IF EXISTS sessions_by_archived_updated;
        DROP INDEX IF EXISTS sessions_by_updated;
      `);
    },
  },
  {
    version: 8,
    description: "imports from other agents: each source file's size, time and hash; each imported branch's source keys",
    up(db) {
      db.exec(IMPORT_RECORDS);
    },
  },
  {
    version: 9,
    description: 'sync through a hub: sync_state, the outbox its triggers fill, per-field clocks, the inbox; sessions.note',
    up(db) {
      db.exec(SYNC_TABLES);
    },
  },
  {
    version: 10,
    description:
      "model_windows: each model's context window as its server, the user's setting or a refusal stated it; pins: what the user pinned in a session; " +
      'compactions: the range each summarised, its steps, what it carried, its context start, and when it was undone',
    up(db) {
      db.exec(MODEL_WINDOWS + PINS + COMPACTION_DETAILS);
    },
  },
  {
    version: 11,
    description: "session_changes: a log of sessions created, changed and deleted, filled by triggers, read by other processes' watchers",
    up(db) {
      db.exec(SESSION_CHANGES);
    },
  },
  {
    version: 12,
    description: 'the Trash: sessions.deleted_at, when a session was moved there (null: live), logged as a change for the watchers',
    up(db) {
      db.exec(TRASH);
    },
  },
  {
    version: 13,
    description:
      'sessions.project_dir: the project folder the user chose for a session (docs/DESIGN.md#the-project-folder), ' +
      'with an index for the sidebar listing one project a page at a time; the change log hears of it',
    up(db) {
      // Left NULL for the sessions already there: which folder their tools may use was never chosen, only recorded (cwd).
      db.exec(`
        ALTER TABLE sessions ADD COLUMN project_dir TEXT;
        CREATE INDEX sessions_page_project ON sessions (project_dir, archived, updated_at, id);
        ${SESSION_CHANGES_V13}
      `);
    },
  },
  {
    version: 14,
    description:
      'sessions.pinned: a session the user keeps on top of the sidebar (docs/DESIGN.md#the-sidebar), logged as a change; ' +
      "sessions.title_by_loom: 1 for a title Loom gave a branch (docs/DESIGN.md#branch-titles), 0 for the user's or an import's",
    up(db) {
      db.exec(`
        ALTER TABLE sessions ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1));
        ALTER TABLE sessions ADD COLUMN title_by_loom INTEGER NOT NULL DEFAULT 0 CHECK (title_by_loom IN (0, 1));
        CREATE INDEX sessions_pinned ON sessions (updated_at, id) WHERE pinned = 1;
        ${SESSION_CHANGES_V14}
      `);
    },
  },
  {
    version: 15,
    description:
      "file_snapshots: each file a session's tools changed, as it was before (security/snapshots.ts), so the Changed files list and Revert outlive the process",
    up(db) {
      db.exec(`
        CREATE TABLE file_snapshots (
          session_pk INTEGER NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
          path TEXT NOT NULL,
          root TEXT NOT NULL,
          folders TEXT NOT NULL,
          name TEXT NOT NULL,
          content BLOB,
          mode INTEGER NOT NULL,
          folders_existed INTEGER NOT NULL,
          PRIMARY KEY (session_pk, path)
        );
      `);
    },
  },
  {
    version: 16,
    description:
      "sessions.agent: the session's agent (docs/DESIGN.md#the-sessions-agent), null for the default; " +
      'agent_changes: each change, placed in the transcript like model changes; the change log hears of it',
    up(db) {
      db.exec(`
        ALTER TABLE sessions ADD COLUMN agent TEXT;
        CREATE TABLE agent_changes (
          id INTEGER PRIMARY KEY,
          session_pk INTEGER NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
          at TEXT NOT NULL,
          from_agent TEXT,
          to_agent TEXT NOT NULL,
          transcript_index INTEGER NOT NULL
        );
        CREATE INDEX agent_changes_by_session ON agent_changes (session_pk, id);
        ${SESSION_CHANGES_V16}
      `);
    },
  },
  {
    version: 18,
    description:
      "sub-agents (docs/DESIGN.md#sub-agents): sessions.spawned_by, the session whose run_subagent call started this one, that call's id, " +
      'the agent it ran and its state (running, done, failed, stopped, interrupted); the change log hears of them',
    up(db) {
      db.exec(CHILD_LINKS);
    },
  },
  {
    version: 19,
    description:
      "sync carries the session's agent and a sub-agent's link and state (its state's trigger hears them) and agent changes (as records); " +
      'a device already syncing queues them again',
    up(db) {
      db.exec(SYNC_TABLES_V19);
    },
  },
  {
    version: 20,
    description:
      'sessions.family_id: the conversation a session branched from, by parent_id, transitively (store/migration-v20.ts), kept by triggers; ' +
      'the sidebar folds a family into one row and pages by family',
    up(db) {
      db.exec(FAMILIES);
    },
  },
];

export const SCHEMA_VERSION_TABLE = 'schema_version';

/** The version recorded in the database; 0 for a database Loom has never written. */
export function readSchemaVersion(db: Database.Database): number {
  const table = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(SCHEMA_VERSION_TABLE);
  if (!table) return 0;
  const row = db.prepare(`SELECT version FROM ${SCHEMA_VERSION_TABLE}`).get() as { version: number } | undefined;
  return row?.version ?? 0;
}

export function latestVersion(migrations: readonly Migration[]): number {
  return migrations.at(-1)?.version ?? 0;
}

/**
 * Applies the migrations newer than the database, each in an IMMEDIATE transaction that
 * re-reads the version, so two processes opening the same old database migrate it once.
 * `beforeEach(version)` runs outside any transaction (VACUUM INTO cannot run inside one).
 */
export function applyMigrations(db: Database.Database, migrations: readonly Migration[], beforeEach: (currentVersion: number) => void): void {
  // The common case, every open of an up-to-date file: one query, not two per migration.
  if (readSchemaVersion(db) >= latestVersion(migrations)) return;
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
