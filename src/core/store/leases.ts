import fs from 'node:fs';
import os from 'node:os';
import type Database from 'better-sqlite3';
import { LoomError } from '../errors';
import { prepared } from './statements';

/** One writer per session: held by an owner until released or until the owner dies. */
export interface Lease {
  readonly sessionId: string;
  release(): void;
}

const HEARTBEAT_INTERVAL_MS = 5_000;
/** Six missed heartbeats: the owner is hung or gone (or its pid was reused). */
const STALE_AFTER_MS = 30_000;

interface LeaseRow {
  owner: string;
  pid: number;
  hostname: string;
  heartbeat_at: string;
}

export function defaultOwner(): string {
  return `${os.hostname()}:${process.pid}`;
}

/** Whether the holder of a lease may still be writing. */
function isLive(row: LeaseRow, now = Date.now()): boolean {
  if (now - Date.parse(row.heartbeat_at) > STALE_AFTER_MS) return false;
  if (row.hostname !== os.hostname()) return true; // another machine: only the heartbeat tells
  return processRuns(row.pid);
}

/** Whether a process of this machine still runs (and so may still write). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH'; // EPERM: alive, not ours
  }
  return !hasExited(pid);
}

/**
 * Whether a process kill(pid, 0) found has in fact exited. A zombie has exited but its parent
 * has not reaped it yet (on a busy machine, or a parent that never waits): kill(0) still
 * finds it, yet it will never write again. Linux shows it as state Z in /proc; elsewhere
 * kill(0) is all there is.
 */
function hasExited(pid: number): boolean {
  if (process.platform !== 'linux') return false;
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT'; // reaped since kill(0): gone
  }
  // "pid (name) state …": the name may hold spaces and ')', so the state follows the last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
}

/**
 * Runs `write`, which touches only the leases table, without waiting for the disk at its
 * commit. A lease is a lock between processes that are alive: after a power loss its holder
 * is gone too, so a lease the disk lost is one nobody holds any more. The WAL stays
 * consistent either way, and the next durable commit (every other write of the store, at
 * synchronous = FULL: db.ts) takes these frames to the disk with its own. This keeps a
 * turn's start and end, and each heartbeat, from paying an fsync each. Inside another
 * transaction the outer one's commit decides, so nothing is changed there.
 */
function withoutWaitingForDisk<T>(db: Database.Database, write: () => T): T {
  if (db.inTransaction) return write();
  db.pragma('synchronous = NORMAL');
  try {
    return write();
  } finally {
    db.pragma('synchronous = FULL');
  }
}

export function inUseError(sessionId: string, pid: number): LoomError {
  return new LoomError(`Session ${sessionId} is in use by pid ${pid}.`, 'session_in_use');
}

/** The leases one SessionStore holds, each kept fresh by an unref'd heartbeat timer. */
export class LeaseKeeper {
  private readonly held = new Map<number, { lease: Lease; owner: string; timer: NodeJS.Timeout }>();

  constructor(private readonly db: Database.Database) {}

  acquire(sessionPk: number, sessionId: string, owner: string): Lease {
    const mine = this.held.get(sessionPk);
    if (mine?.owner === owner) return mine.lease;
    const take = this.db.transaction(() => {
      const row = this.liveRow(sessionPk);
      if (row && row.owner !== owner) throw inUseError(sessionId, row.pid);
      prepared(this.db, `INSERT OR REPLACE INTO leases (session_pk, owner, pid, hostname, heartbeat_at) VALUES (?, ?, ?, ?, ?)`).run(
        sessionPk,
        owner,
        process.pid,
        os.hostname(),
        new Date().toISOString(),
      );
    });
    withoutWaitingForDisk(this.db, () => take.immediate());
    const timer = setInterval(() => this.heartbeat(sessionPk, owner), HEARTBEAT_INTERVAL_MS);
    timer.unref();
    const lease: Lease = { sessionId, release: () => this.release(sessionPk, owner) };
    this.held.set(sessionPk, { lease, owner, timer });
    return lease;
  }

  /** A live lease on the session held by someone other than this store, if any. */
  foreignHolder(sessionPk: number): LeaseRow | undefined {
    if (this.held.has(sessionPk)) return undefined;
    return this.liveRow(sessionPk);
  }

  /** Stops tracking a lease whose row is going away with its session. */
  forget(sessionPk: number): void {
    const mine = this.held.get(sessionPk);
    if (mine) clearInterval(mine.timer);
    this.held.delete(sessionPk);
  }

  /** Lets go of this store's lease on the session, if it holds one: the session went to the Trash. */
  letGo(sessionPk: number): void {
    const mine = this.held.get(sessionPk);
    if (mine) this.release(sessionPk, mine.owner);
  }

  releaseAll(): void {
    for (const [sessionPk, { owner }] of [...this.held]) this.release(sessionPk, owner);
  }

  private release(sessionPk: number, owner: string): void {
    const mine = this.held.get(sessionPk);
    if (!mine || mine.owner !== owner) return;
    this.forget(sessionPk);
    withoutWaitingForDisk(this.db, () => prepared(this.db, `DELETE FROM leases WHERE session_pk = ? AND owner = ?`).run(sessionPk, owner));
  }

  private heartbeat(sessionPk: number, owner: string): void {
    try {
      const beat = prepared(this.db, `UPDATE leases SET heartbeat_at = ? WHERE session_pk = ? AND owner = ?`);
      withoutWaitingForDisk(this.db, () => beat.run(new Date().toISOString(), sessionPk, owner));
    } catch {
      // Busy for longer than busy_timeout: the next beat retries, well before the lease goes stale.
    }
  }

  private liveRow(sessionPk: number): LeaseRow | undefined {
    const row = prepared(this.db, `SELECT owner, pid, hostname, heartbeat_at FROM leases WHERE session_pk = ?`).get(sessionPk) as LeaseRow | undefined;
    return row && isLive(row) ? row : undefined;
  }
}
