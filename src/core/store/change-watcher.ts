/**
 * Notices what other processes committed to loom.db (docs/DESIGN.md, "Live everywhere"):
 * `PRAGMA data_version` on this connection moves only when another connection commits, so
 * a poll costs one pragma while nothing happens elsewhere. When it moves, one read of
 * every session's metadata is compared with the last one: what differs was changed,
 * created or deleted by someone else.
 */
import type { SessionMeta } from '../../shared/types';
import type { SessionStore } from './session-store';

export interface SessionChange {
  id: string;
  /** The session now, or null when it is gone. */
  meta: SessionMeta | null;
  /** How it was last seen (null for a new one). */
  before: SessionMeta | null;
}

export class ChangeWatcher {
  private version: number;
  private known = new Map<string, { meta: SessionMeta; key: string }>();

  constructor(private readonly store: SessionStore) {
    this.version = this.dataVersion();
    this.known = this.read();
  }

  /** The sessions other connections changed since the last call; [] (one pragma) when none committed. */
  poll(): SessionChange[] {
    const version = this.dataVersion();
    if (version === this.version) return [];
    this.version = version;
    const now = this.read();
    const changes: SessionChange[] = [];
    for (const [id, entry] of now) {
      const old = this.known.get(id);
      if (old?.key !== entry.key) changes.push({ id, meta: entry.meta, before: old?.meta ?? null });
    }
    for (const [id, old] of this.known) {
      if (!now.has(id)) changes.push({ id, meta: null, before: old.meta });
    }
    this.known = now;
    return changes;
  }

  private dataVersion(): number {
    return this.store.db.pragma('data_version', { simple: true }) as number;
  }

  private read(): Map<string, { meta: SessionMeta; key: string }> {
    const entries = this.store.list({ includeArchived: true }).map((meta) => [meta.id, { meta, key: JSON.stringify(meta) }] as const);
    return new Map(entries);
  }
}
