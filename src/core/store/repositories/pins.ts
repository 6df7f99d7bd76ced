/**
 * What the user pinned in a session (docs/DESIGN.md#what-compaction-carries): a transcript
 * message by its position, or a note of their own. Pins are carried whole through every
 * compaction; they are bookkeeping, so a session does not move up the list for one.
 */
import type Database from 'better-sqlite3';
import { toolText, userText } from '../../../shared/fences';
import type { ChatMessage, Pin } from '../../../shared/types';
import { LoomError } from '../../errors';
import { prepared } from '../statements';
import { readTranscript } from '../transcript-chain';

/** The longest note a user can pin. */
const MAX_PIN_NOTE_CHARS = 4_000;
/** Most pins a session keeps: each is sent with every compacted context. */
const MAX_PINS = 100;

interface PinRow {
  id: number;
  seq: number | null;
  note: string | null;
  at: string;
}

export function listPins(db: Database.Database, pk: number): Pin[] {
  const rows = prepared(db, 'SELECT id, seq, note, at FROM pins WHERE session_pk = ? ORDER BY id').all(pk) as PinRow[];
  return rows.map((row) => {
    if (row.seq === null) return { id: row.id, seq: null, at: row.at, role: null, text: row.note ?? '' };
    const message = readTranscript(db, pk, row.seq, 1)[0];
    return { id: row.id, seq: row.seq, at: row.at, role: message?.role ?? null, text: message ? pinnedText(message) : '' };
  });
}

/** A pinned message's text as the user reads it: without Loom's fences around their words or a tool's result. */
function pinnedText(message: ChatMessage): string {
  if (message.role === 'user') return userText(message.content);
  if (message.role === 'tool') return toolText(message.content ?? '');
  return message.content ?? '';
}

/** Pins transcript message `seq` (once: pinning it again returns the same pin) or a note. */
export function addPin(db: Database.Database, pk: number, target: { seq: number; length: number } | { note: string }): number {
  const count = (prepared(db, 'SELECT count(*) AS n FROM pins WHERE session_pk = ?').get(pk) as { n: number }).n;
  if ('seq' in target) {
    const { seq, length } = target;
    if (!Number.isInteger(seq) || seq < 0 || seq >= length) throw new LoomError(`There is no message ${seq + 1} to pin: the session has ${length}.`, 'bad_pin');
    const existing = prepared(db, 'SELECT id FROM pins WHERE session_pk = ? AND seq = ?').get(pk, seq) as { id: number } | undefined;
    if (existing) return existing.id;
    refuseOverLimit(count);
    return Number(prepared(db, 'INSERT INTO pins (session_pk, seq, at) VALUES (?, ?, ?)').run(pk, seq, new Date().toISOString()).lastInsertRowid);
  }
  const note = target.note.trim();
  if (!note) throw new LoomError('A pinned note needs some text.', 'bad_pin');
  if (note.length > MAX_PIN_NOTE_CHARS)
    throw new LoomError(`A pinned note can have at most ${MAX_PIN_NOTE_CHARS.toLocaleString('en-US')} characters.`, 'bad_pin');
  refuseOverLimit(count);
  return Number(prepared(db, 'INSERT INTO pins (session_pk, note, at) VALUES (?, ?, ?)').run(pk, note, new Date().toISOString()).lastInsertRowid);
}

function refuseOverLimit(count: number): void {
  if (count >= MAX_PINS) throw new LoomError(`A session can keep at most ${MAX_PINS} pins; unpin one first.`, 'bad_pin');
}

/** False when the session has no such pin. */
export function removePin(db: Database.Database, pk: number, pinId: number): boolean {
  return prepared(db, 'DELETE FROM pins WHERE session_pk = ? AND id = ?').run(pk, pinId).changes > 0;
}
