/**
 * The engine's lifecycle methods (docs/DESIGN.md#who-may-change-a-session): the lease
 * rule, the engine's own open session, and the one event each change sends with the
 * session as it is now. The CLI and the bridge only call these (test/cli/lifecycle-in-use,
 * test/bridge/live-changes).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/core/store/session-store';
import { makeAgentHarness, type AgentHarness } from './harness';

let h: AgentHarness;
afterEach(() => h?.cleanup());

describe('LoomEngine lifecycle', () => {
  it('refuses to rename, archive, unarchive or delete a session another owner works in, and sends nothing', async () => {
    h = await makeAgentHarness();
    h.engine.close(h.sessionId);
    const other = SessionStore.open(h.dataDir);
    const lease = other.acquireLease(h.sessionId, 'another-process');
    try {
      const before = h.store.getMeta(h.sessionId);
      const count = h.events.length;
      const refusal = `Session ${h.sessionId} is in use by pid ${process.pid}.`;
      expect(() => h.engine.rename(h.sessionId, 'Nope')).toThrow(refusal);
      expect(() => h.engine.setArchived(h.sessionId, true)).toThrow(refusal);
      expect(() => h.engine.setArchived(h.sessionId, false)).toThrow(refusal);
      expect(() => h.engine.deleteSession(h.sessionId.slice(0, 8))).toThrow(refusal);
      expect(h.store.getMeta(h.sessionId)).toEqual(before);
      expect(h.events.length).toBe(count);

      // Reading and copying are still allowed.
      const fork = h.engine.fork(h.sessionId);
      expect(h.events.at(-1)).toEqual({ type: 'session_changed', sessionId: fork.id, meta: fork });
      const imported = h.engine.importSession(await h.store.exportSession(h.sessionId));
      expect(h.events.at(-1)).toEqual({ type: 'session_changed', sessionId: imported.meta.id, meta: imported.meta });
    } finally {
      lease.release();
      other.close();
    }
  });

  it('ends its own work on a session before archiving or deleting it, and says so with the session', async () => {
    h = await makeAgentHarness();
    expect(h.engine.isOpen(h.sessionId)).toBe(true);
    const renamed = h.engine.rename(h.sessionId, 'Mine');
    expect(h.events.at(-1)).toEqual({ type: 'session_changed', sessionId: h.sessionId, meta: renamed });

    const archived = h.engine.setArchived(h.sessionId, true);
    expect(archived).toMatchObject({ archived: true, status: 'saved', title: 'Mine' });
    expect(h.engine.isOpen(h.sessionId)).toBe(false);
    expect(h.events.at(-1)).toEqual({ type: 'session_changed', sessionId: h.sessionId, meta: archived });

    h.engine.setArchived(h.sessionId, false);
    await h.engine.openSession(h.sessionId);
    expect(h.engine.deleteSession(h.sessionId)).toBe(h.sessionId);
    expect(h.engine.isOpen(h.sessionId)).toBe(false);
    expect(h.events.at(-1)).toMatchObject({ type: 'session_deleted', sessionId: h.sessionId, meta: { title: 'Mine' } });
    expect(h.store.list({ includeArchived: true }).map((s) => s.id)).not.toContain(h.sessionId);
  });
});
