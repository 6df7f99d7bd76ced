/**
 * Sessions written straight into a hub with SQL, as their owner would push them (the rows
 * of docs/DESIGN.md#the-hubs-schema): for tests of what the hub lets each role read and
 * find, without a device's sync in between.
 */
import { createHash } from 'node:crypto';

export interface HubSessionRows {
  id: string;
  title: string;
  /** One user message per text, in order. */
  messages: string[];
  /** The hub_seq of the session and its rows. */
  seq: number;
  archived?: boolean;
  deleted?: boolean;
  updatedAt?: string;
  /** A fork reads the entries before `at` from its parent (docs/DESIGN.md#branches); its own messages start there. */
  fork?: { parentId: string; at: number };
}

export const TEST_DEVICE = '33333333-3333-4333-8333-333333333333';

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

const userMessageBody = (content: string) => JSON.stringify({ role: 'user', content });

/** The hash a user message with this text is stored under. */
export function bodyHash(content: string): string {
  return createHash('sha256').update(userMessageBody(content)).digest('hex');
}

/** The SQL that inserts one session, its bodies and entries (and the test device, once), as the role that runs it. */
export function hubSessionSql(session: HubSessionRows): string {
  const state = JSON.stringify({ updated_at: session.updatedAt ?? '2026-11-30T10:00:00.000Z', message_count: session.messages.length });
  const statements = [
    // The rows name the writer's device, which the hub requires to be the writer's own.
    `INSERT INTO loom.devices (device_id, label) VALUES ('${TEST_DEVICE}', 'test device') ON CONFLICT DO NOTHING`,
    `INSERT INTO loom.sessions (id, created_at, title, archived, state, deleted_hlc, origin_device, hub_seq, fork_parent_id, fork_at)
     VALUES (${literal(session.id)}, '2026-11-30T09:00:00.000Z', ${literal(session.title)}, ${session.archived ? 'true' : 'false'},
             ${literal(state)}, ${session.deleted ? '1' : 'NULL'}, '${TEST_DEVICE}', ${session.seq},
             ${session.fork ? literal(session.fork.parentId) : 'NULL'}, ${session.fork?.at ?? 0})`,
  ];
  const firstSeq = session.fork?.at ?? 1;
  session.messages.forEach((content, i) => {
    const body = userMessageBody(content);
    const hash = bodyHash(content);
    statements.push(
      `INSERT INTO loom.bodies (hash, body, search) VALUES ('${hash}', ${literal(body)}, to_tsvector('english', ${literal(content)})) ON CONFLICT DO NOTHING`,
      `INSERT INTO loom.entries (session_id, seq, body_hash, device_id, device_seq, hub_seq)
       VALUES (${literal(session.id)}, ${firstSeq + i}, '${hash}', '${TEST_DEVICE}', ${session.seq * 1000 + i}, ${session.seq})`,
    );
  });
  return `${statements.join(';\n')};`;
}
