import { LoomError } from '../errors';
import type { SessionStore } from '../store/session-store';
import { nextStamp } from './hlc';

const TEAM_NAME = /^[\w.-]{1,64}$/;

/**
 * Queues sharing a session with a team (docs/DESIGN.md#sync-through-a-hub): the next push
 * records it on the hub, which lets the team's members read the session (never write it).
 * Queued even while sync is off: it goes with the first sync.
 */
export function shareSession(store: SessionStore, sessionId: string, team: string): void {
  if (!TEAM_NAME.test(team)) throw new LoomError(`"${team}" is not a team name (letters, digits, . _ -, at most 64).`, 'bad_team');
  store.batch(() => {
    const id = store.resolveId(sessionId);
    const clock = (store.db.prepare('SELECT MAX(clock) AS clock FROM sync_state').get() as { clock: number | null }).clock ?? 0;
    const stamp = nextStamp(clock);
    store.db.prepare('UPDATE sync_state SET clock = ?').run(stamp);
    store.db.prepare(`INSERT INTO sync_outbox (kind, session_id, hlc, fields) VALUES ('share', ?, ?, ?)`).run(id, stamp, team);
  });
}
