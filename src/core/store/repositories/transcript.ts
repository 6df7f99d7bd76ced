/**
 * The transcript's writes: message bodies (messages), their places in a session
 * (transcript) and the queue of bodies the full-text index has still to read
 * (search_backlog). A body is written once and shared by every fork that reads it.
 */
import type Database from 'better-sqlite3';
import type { MessageColumns } from '../messages';
import { prepared } from '../statements';

/** A body as stored: its columns (messages.ts) and its facts as JSON, null when none were recorded. */
export type MessageRow = MessageColumns & { facts: string | null };

/**
 * Message `seq` of session `pk`: a new body, its transcript row, and its place in the
 * search queue unless it is a system prompt (prompts are never search hits). Returns the
 * body's id. in_transcript is always 1 since version 3 (context-only bodies became context starts).
 */
export function insertEntry(db: Database.Database, pk: number, seq: number, row: MessageRow): number {
  const messageId = Number(
    prepared(
      db,
      'INSERT INTO messages (role, content, tool_calls, tool_call_id, tool_text, stopped, images, facts, in_transcript) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)',
    ).run(row.role, row.content, row.tool_calls, row.tool_call_id, row.tool_text, row.stopped, row.images, row.facts).lastInsertRowid,
  );
  prepared(db, 'INSERT INTO transcript (session_pk, seq, message_id) VALUES (?, ?, ?)').run(pk, seq, messageId);
  if (row.role !== 'system') prepared(db, 'INSERT INTO search_backlog (message_id) VALUES (?)').run(messageId);
  return messageId;
}

/** Session `to` takes its own rows for the first `below` positions `from` holds (the bodies stay shared). */
export function copyRowsBelow(db: Database.Database, to: number, from: number, below: number): void {
  prepared(db, 'INSERT OR IGNORE INTO transcript (session_pk, seq, message_id) SELECT ?, seq, message_id FROM transcript WHERE session_pk = ? AND seq < ?').run(
    to,
    from,
    below,
  );
}

/** Session `from`'s rows at positions `at` on become session `to`'s, at the same positions. */
export function moveRowsFrom(db: Database.Database, from: number, to: number, at: number): void {
  prepared(db, 'UPDATE transcript SET session_pk = ? WHERE session_pk = ? AND seq >= ?').run(to, from, at);
}

/** Empties the search queue once the index has read it; returns how many bodies it held. */
export function clearSearchBacklog(db: Database.Database): number {
  return prepared(db, 'DELETE FROM search_backlog').run().changes;
}

/**
 * Queues every message a transcript append would have queued: a database rebuilt from
 * copied rows (a salvage) starts with an empty full-text index.
 */
export function queueEveryMessageForSearch(db: Database.Database): void {
  prepared(db, `INSERT OR IGNORE INTO search_backlog (message_id) SELECT id FROM messages WHERE in_transcript = 1 AND role <> 'system'`).run();
}
