import type Database from 'better-sqlite3';
import type { ChatMessage } from '../../shared/types';
import { LoomError } from '../errors';
import { WHOLE_TRANSCRIPT, derive, sameMessages, startFor } from './context-start';
import { fromColumns, type MessageColumns } from './messages';
import { insertStart } from './repositories/records';

/** The message columns of a version 2 database (messages.stopped came with version 4). */
const MESSAGE_COLUMNS = 'm.role, m.content, m.tool_calls, m.tool_call_id';
type StoredMessage = Pick<MessageColumns, 'role' | 'content' | 'tool_calls' | 'tool_call_id'>;

/**
 * Version 3 (docs/DESIGN.md#the-working-context-is-derived): forks read their
 * history from their parent, and the working context is derived from the transcript plus
 * context starts instead of being a second list of rows. Every session's old context is
 * turned into a start that derives it exactly (checked here, or the migration fails and
 * the database stays at version 2), then the context table goes.
 */
const FORKS_AND_STARTS = `
  ALTER TABLE sessions ADD COLUMN fork_parent_pk INTEGER REFERENCES sessions (pk);
  ALTER TABLE sessions ADD COLUMN fork_at INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX sessions_by_fork_parent ON sessions (fork_parent_pk) WHERE fork_parent_pk IS NOT NULL;

  -- at_seq: the transcript length when the start was recorded (a fork at N inherits the
  -- latest start with at_seq <= N). head: the messages before the kept suffix, as JSON.
  CREATE TABLE context_starts (
    id INTEGER PRIMARY KEY,
    session_pk INTEGER NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
    at_seq INTEGER NOT NULL,
    kept_from INTEGER NOT NULL,
    with_system INTEGER NOT NULL CHECK (with_system IN (0, 1)),
    head TEXT NOT NULL,
    prompt_seq INTEGER
  );
  CREATE INDEX context_starts_by_session ON context_starts (session_pk, id);
`;

const WITHOUT_CONTEXT = `
  DROP TRIGGER transcript_release;
  DROP TRIGGER context_release;
  DROP TABLE context;
  -- Bodies only a working context held (old boundary messages): now in the starts' heads.
  DELETE FROM messages WHERE NOT EXISTS (SELECT 1 FROM transcript t WHERE t.message_id = messages.id);
  CREATE TRIGGER transcript_release AFTER DELETE ON transcript BEGIN
    DELETE FROM messages WHERE id = old.message_id
      AND NOT EXISTS (SELECT 1 FROM transcript WHERE message_id = old.message_id);
  END;
`;

export function deriveContexts(db: Database.Database): void {
  db.exec(FORKS_AND_STARTS);
  const sessions = db.prepare('SELECT pk FROM sessions ORDER BY pk').all() as { pk: number }[];
  for (const { pk } of sessions) recordStart(db, pk);
  db.exec(WITHOUT_CONTEXT);
}

function recordStart(db: Database.Database, pk: number): void {
  const context = rows(db, `SELECT ${MESSAGE_COLUMNS} FROM context c JOIN messages m ON m.id = c.message_id WHERE c.session_pk = ? ORDER BY c.position`, pk);
  const transcript = rows(db, `SELECT ${MESSAGE_COLUMNS} FROM transcript t JOIN messages m ON m.id = t.message_id WHERE t.session_pk = ? ORDER BY t.seq`, pk);
  if (sameMessages(derive(WHOLE_TRANSCRIPT, transcript), context)) return;
  const start = startFor(context, transcript);
  if (!sameMessages(derive(start, transcript), context)) {
    throw new LoomError(`Migration 3 could not derive the working context of session #${pk}; the database was left unchanged.`, 'migration_failed');
  }
  const compacted = compactedAt(db, pk);
  // A start whose head holds later messages (keptFrom past the compaction) stands for now only.
  insertStart(db, pk, compacted !== null && start.keptFrom <= compacted ? compacted : transcript.length, start);
}

/**
 * The start stands for the latest compaction when there was one (a fork before it must not
 * inherit it); otherwise for the transcript as it is now.
 */
function compactedAt(db: Database.Database, pk: number): number | null {
  const row = db.prepare('SELECT transcript_index FROM compactions WHERE session_pk = ? ORDER BY id DESC LIMIT 1').get(pk) as
    { transcript_index: number | null } | undefined;
  return row?.transcript_index ?? null;
}

function rows(db: Database.Database, sql: string, pk: number): ChatMessage[] {
  return (db.prepare(sql).all(pk) as StoredMessage[]).map(fromColumns);
}
