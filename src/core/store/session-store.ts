import type Database from 'better-sqlite3';
import type {
  BranchPoint,
  CallKind,
  ChildLink,
  ChildSession,
  ChildState,
  CallUsage,
  ChatMessage,
  Compaction,
  CompactionDetail,
  MessageFacts,
  ModelChange,
  AgentChange,
  Pin,
  PlanState,
  SearchHit,
  SessionCursor,
  SessionFamily,
  SessionMeta,
  SessionPage,
  SessionRecord,
  SessionStatus,
  SessionUsage,
  TrashedSession,
} from '../../shared/types';
import type { TranscriptSeq } from '../../shared/engine-events';
import { EXPORT_FORMATS, type ExportFormat } from '../../shared/export-name';
import { isUnstarted } from '../../shared/message-count';
import { LoomError } from '../errors';
import { childOfCall, descendantPks, descendants, listChildren, readChildLink, toolsUsed } from './children';
import { openDatabase } from './db';
import { renderExport } from './export';
import type { ParsedExport } from './export-schema';
import { LeaseKeeper, defaultOwner, inUseError, type Lease } from './leases';
import type { OriginalsKeeper } from '../security/snapshots';
import { addFileSnapshot, hasFileSnapshot, listFileSnapshots } from './repositories/file-snapshots';
import { Maintenance } from './maintenance';
import { listDetails } from './repositories/compaction-records';
import { deleteSession } from './repositories/forks';
import { addPin, listPins, removePin } from './repositories/pins';
import { addUsage, listAgentChanges, listCompactions, listModelChanges, readUsage, readUsageOf } from './repositories/records';
import { nextUpdateTime, setSessionColumns, type SessionColumns } from './repositories/sessions';
import { findInSession } from './find';
import { searchSessions, updateSearchIndex } from './search';
import { newSessionId } from './session-id';
import {
  contextIndexOf,
  listPage,
  listProjects,
  listSessions,
  pkOf,
  readMeta,
  readPlan,
  readRecord,
  resolveId,
  isLive,
  treeFields,
  type ListOptions,
} from './session-reads';
import { branchesAt, branchPoints, familyOf, forkSession } from './session-tree';
import * as steps from './session-writes';
import { DEFAULT_TRASH_DAYS } from '../../shared/settings';
import { expiredPks, listTrashed, matchTrashed, trashedAt, trashedPk } from './trash';
import { readContext, readTranscript, readTranscriptFacts } from './transcript-chain';

export type { Lease } from './leases';
export type { AppendFacts } from './session-writes';

export interface ImportedSession {
  meta: SessionMeta;
  /** Tool calls the export left without a result, closed on import (its sub-agents' included). */
  closedCalls: number;
  /** Its sub-agents' new sessions, linked to it, in the export's order. */
  children: SessionMeta[];
  /** Sub-agent sessions whose link named no call of the parent's transcript: imported as sessions of their own. */
  unlinked: SessionMeta[];
}

/**
 * Durable sessions in <dataDir>/loom.db: metadata, the full transcript, the working
 * context, compactions, usage, plan and leases. Every write is one transaction; every
 * method taking an id throws a LoomError for an unknown one. A facade: the reads are
 * session-reads.ts and session-tree.ts, the writes' steps session-writes.ts, their SQL
 * the repositories' (repositories/README.md).
 */
export class SessionStore {
  private readonly leases: LeaseKeeper;
  private readonly maintenance: Maintenance;

  private constructor(
    readonly db: Database.Database,
    readonly dataDir: string,
  ) {
    this.leases = new LeaseKeeper(db);
    this.maintenance = new Maintenance(db);
  }

  /** Opens (creating or migrating) <dataDir>/loom.db; LoomError on a corrupt or foreign file. */
  static open(dataDir: string): SessionStore {
    return new SessionStore(openDatabase(dataDir), dataDir);
  }

  /** Brings the search index up to date, releases this store's leases, closes the database. */
  close(): void {
    if (!this.db.open) return;
    this.maintenance.runNow();
    this.leases.releaseAll();
    this.db.close();
  }

  /** Indexes messages appended since the last search; returns how many (search does this itself). */
  updateSearchIndex(): number {
    return updateSearchIndex(this.db);
  }

  // ---- creating and writing ----

  /** `parentId`: a session this one came from without sharing its messages (an imported sub-agent's); `projectDir`: the folder the user chose for it. */
  create(init: steps.NewSession = {}): SessionMeta {
    const id = newSessionId();
    this.write(() => steps.insertNew(this.db, id, init));
    return this.getMeta(id);
  }

  /** Adds the message to the transcript (so to the derived context), committed before returning, stamped now. */
  appendMessage(id: string, message: ChatMessage, facts: steps.AppendFacts = {}): steps.AppendedMessage {
    return this.write(() => steps.appendTo(this.db, this.pkOf(id), message, nextUpdateTime(this.db), facts));
  }

  /** appendMessage for several messages in one transaction; `facts[i]` what the source recorded of message i (its own time). */
  appendMessages(id: string, messages: readonly ChatMessage[], facts: readonly (Partial<MessageFacts> | undefined)[] = []): void {
    this.write(() => steps.appendAll(this.db, this.pkOf(id), messages, facts));
  }

  /** Replaces the working context (recorded as a context start); the transcript is untouched. */
  replaceContext(id: string, messages: ChatMessage[]): void {
    this.write(() => steps.replaceContext(this.db, this.pkOf(id), messages));
  }

  /**
   * The new working context, the compaction record and its usage, in one transaction. The
   * record's transcript_index is the transcript length now (any given one is ignored).
   * `cut`: where in the context before it the kept part began (the compactor's cut).
   */
  recordCompaction(id: string, c: steps.CompactionWrite): void {
    this.write(() => steps.writeCompaction(this.db, this.pkOf(id), c));
  }

  /** Where transcript message `seq` is in the working context; null when it is not there. */
  contextIndexOf(id: string, seq: number): number | null {
    return contextIndexOf(this.db, this.pkOf(id), seq);
  }

  /** Each compaction with what the view of what it kept and dropped shows, oldest first. */
  getCompactionDetails(id: string): CompactionDetail[] {
    return listDetails(this.db, this.pkOf(id));
  }

  /** Undoes the last compaction: the context before it comes back (with what was appended since); the record stays, marked undone. */
  undoCompaction(id: string): ChatMessage[] {
    return this.write(() => steps.undoCompaction(this.db, this.pkOf(id)));
  }

  /** Makes `model` the session's for its next requests and records the change; false, recording nothing, when it already is. */
  setModel(id: string, model: string): boolean {
    return this.write(() => steps.changeModel(this.db, this.pkOf(id), model));
  }

  /** Makes `agent` the session's from its next turn on and records the change; false, recording nothing, when it already is. */
  setAgent(id: string, agent: string): boolean {
    return this.write(() => steps.changeAgent(this.db, this.pkOf(id), agent));
  }

  recordUsage(id: string, kind: CallKind, usage: CallUsage): void {
    this.write(() => addUsage(this.db, this.pkOf(id), kind, usage, 1));
  }

  savePlan(id: string, plan: PlanState): void {
    this.update(id, { plan: JSON.stringify(plan) }, true);
  }

  /** The folder a session is opened in (its cwd and project folder) and the system prompt built for it; bookkeeping: the session keeps its place. */
  setProject(id: string, project: { cwd: string; systemPrompt: string }): void {
    this.write(() => steps.writeProject(this.db, this.pkOf(id), project));
  }

  /** Status and the archive flag are bookkeeping: they do not move a session up the list. */
  setStatus(id: string, status: SessionStatus): void {
    this.update(id, { status }, false);
  }

  /** The user title; blank clears it (lists then show the summary). Bookkeeping: only new messages move a session up the list. */
  rename(id: string, title: string): void {
    this.update(id, { title: title.trim() || null, title_by_loom: 0 }, false);
  }

  /** The model-written listing summary. */
  setSummary(id: string, summary: string): void {
    this.update(id, { summary: summary.trim() || null }, true);
  }

  /** Keeps the session on top of the sidebar, or not; bookkeeping: its place among the others stays. */
  setPinned(id: string, pinned: boolean): void {
    this.update(id, { pinned: pinned ? 1 : 0 }, false);
  }

  /** A parent's sub-agents are archived and unarchived with it: they are hidden with it. */
  setArchived(id: string, archived: boolean): void {
    this.write(() => {
      const pk = this.pkOf(id);
      for (const each of [pk, ...descendantPks(this.db, pk)]) setSessionColumns(this.db, each, { archived: archived ? 1 : 0 });
    });
  }

  /** Where sub-agent `id`'s run stands (docs/DESIGN.md#sub-agents); bookkeeping, as status is. */
  setChildState(id: string, state: ChildState): void {
    this.update(id, { child_state: state }, false);
  }

  /** A session imported from another agent keeps the dates it had there (docs/DESIGN.md#importing-from-other-agents). */
  setDates(id: string, createdAt: string, updatedAt: string): void {
    this.update(id, { created_at: createdAt, updated_at: updatedAt }, false);
  }

  /** Pins transcript message `seq` or a note; returns the pin's id. Bookkeeping: the session keeps its place in the list. */
  pin(id: string, target: { seq: number } | { note: string }): number {
    return this.write(() => {
      const pk = this.pkOf(id);
      return addPin(this.db, pk, 'seq' in target ? { seq: target.seq, length: steps.messageCount(this.db, pk) } : target);
    });
  }

  /** False when the session has no such pin. */
  unpin(id: string, pinId: number): boolean {
    return this.write(() => removePin(this.db, this.pkOf(id), pinId));
  }

  // ---- reading ----

  /** A unique id prefix (or a full id) to the full id. */
  resolveId(idOrPrefix: string): string {
    return resolveId(this.db, idOrPrefix);
  }

  getMeta(id: string): SessionMeta {
    return readMeta(this.db, id);
  }

  /** The whole record, read from one snapshot. */
  get(id: string): SessionRecord {
    return this.db.transaction(() => readRecord(this.db, id))();
  }

  /** The working context sent to the model, derived from the transcript (context-start.ts). */
  getContext(id: string): ChatMessage[] {
    return readContext(this.db, this.pkOf(id));
  }

  /** Transcript messages from index `offset`, at most `limit` of them (all by default); a fork's include its parent's. */
  getTranscript(id: string, offset = 0, limit = -1): ChatMessage[] {
    return readTranscript(this.db, this.pkOf(id), Math.max(0, Math.floor(offset)), limit);
  }

  /** The facts of the messages getTranscript reads with the same arguments, null where none were recorded. */
  getTranscriptFacts(id: string, offset = 0, limit = -1): (MessageFacts | null)[] {
    return readTranscriptFacts(this.db, this.pkOf(id), Math.max(0, Math.floor(offset)), limit);
  }

  /** The session's model changes, oldest first. */
  getModelChanges(id: string): ModelChange[] {
    return listModelChanges(this.db, this.pkOf(id));
  }

  getAgentChanges(id: string): AgentChange[] {
    return listAgentChanges(this.db, this.pkOf(id));
  }

  /** In order; `transcript_index` only where it is known (older records may lack it). */
  getCompactions(id: string): Compaction[] {
    return listCompactions(this.db, this.pkOf(id));
  }

  getUsage(id: string): SessionUsage {
    return readUsage(this.db, this.pkOf(id));
  }

  /** The session's own usage, its sub-agents' (theirs included) and the two summed: what --max-cost-usd and Info count. */
  getFamilyUsage(id: string): { own: SessionUsage; children: SessionUsage; total: SessionUsage } {
    return this.db.transaction(() => {
      const pk = this.pkOf(id);
      const children = descendants(this.db, pk)
        .filter((d) => d.deleted_at === null)
        .map((d) => d.pk);
      return { own: readUsage(this.db, pk), children: readUsageOf(this.db, children), total: readUsageOf(this.db, [pk, ...children]) };
    })();
  }

  /** What the user pinned in the session, oldest first. */
  getPins(id: string): Pin[] {
    return listPins(this.db, this.pkOf(id));
  }

  getPlan(id: string): PlanState {
    return readPlan(this.db, id);
  }

  /** Newest updated first (then by id); archived sessions only when asked for; `after`: keyset paging. */
  list(opts: ListOptions = {}): SessionMeta[] {
    return listSessions(this.db, opts);
  }

  /** One page of the list (`limit` sessions after `after`) and the cursor of the next one. */
  listPage(opts: { includeArchived?: boolean; limit: number; after?: SessionCursor; project?: string }): SessionPage {
    return listPage(this.db, opts);
  }

  /** Session `id`'s sub-agents, in the order they started; a fork's include those its inherited history started (child.parent_id says whose). */
  children(id: string): ChildSession[] {
    return listChildren(this.db, this.pkOf(id));
  }

  /** The tools session `id`'s calls named, each once, in the order first used. */
  toolsUsed(id: string): string[] {
    return toolsUsed(this.db, this.pkOf(id));
  }

  /** What links sub-agent `id` to its parent; null for a session no run_subagent call started. */
  childLink(id: string): ChildLink | null {
    return readChildLink(this.db, id);
  }

  /** The sub-agent call `callId` of session `parentId` started, if it got that far. */
  childOfCall(parentId: string, callId: string): ChildSession | undefined {
    return childOfCall(this.db, parentId, callId);
  }

  /** The most recently updated unarchived session. */
  mostRecent(): SessionMeta | undefined {
    return this.list({ limit: 1 })[0];
  }

  /** Full-text search over titles, summaries and transcripts; one ranked hit per session. */
  search(query: string, opts: { includeArchived?: boolean; limit?: number; offset?: number; project?: string } = {}): SearchHit[] {
    return searchSessions(this.db, query, opts);
  }

  /** The transcript positions of the messages holding every term of `query`, in order (find in session). */
  find(id: string, query: string): TranscriptSeq[] {
    return findInSession(this.db, this.pkOf(id), query);
  }

  /** The project folders sessions were chosen for, each with how many sessions it has (archived ones too), by path. */
  projects(): { path: string; sessions: number }[] {
    return listProjects(this.db);
  }

  // ---- the session tree (docs/DESIGN.md#branches) ----

  /**
   * A new session sharing the first `at` transcript messages (default: all) with this one,
   * read from their owner, so no message row is copied. It inherits the records made by
   * then; usage only when it forks the whole session. Status saved, not archived; titled as
   * the branch it is (`kind`: a regenerated reply's branch is a 'retry', branch-title.ts).
   */
  fork(id: string, at?: number, kind: 'fork' | 'retry' = 'fork'): SessionMeta {
    const newId = newSessionId();
    this.write(() => forkSession(this.db, this.pkOf(id), id, newId, at, { kind }));
    return this.getMeta(newId);
  }

  /** A fork at message `at` with the edited `message` appended, in one transaction (edit-and-resend), titled as an edit. */
  appendBranch(id: string, at: number, message: ChatMessage): SessionMeta {
    const newId = newSessionId();
    this.write(() => {
      const pk = forkSession(this.db, this.pkOf(id), id, newId, at, { kind: 'edit', message });
      steps.appendTo(this.db, pk, message, nextUpdateTime(this.db));
    });
    return this.getMeta(newId);
  }

  /** The branches sharing the first `at` messages and going their own way after them, oldest first (a "2 / 3" switcher's list). */
  branchesAt(id: string, at: number): SessionMeta[] {
    return branchesAt(this.db, this.pkOf(id), at);
  }

  /** Every place in this session's transcript where other branches go their own way, and which one it follows. */
  branchPoints(id: string): BranchPoint[] {
    return this.db.transaction(() => branchPoints(this.db, this.pkOf(id)))();
  }

  /** The parent (null when none or deleted), the other forks of the same parent and its own forks, oldest first, at most `limit` of each. */
  family(id: string, limit = 200): SessionFamily {
    return familyOf(this.db, this.getMeta(id), limit);
  }

  // ---- whole-session operations ----

  /** Removes the session, its sub-agents and all their rows; refused while another live process holds the session's lease or a child's. */
  delete(id: string): void {
    this.whileFree(id, () => {
      for (const pk of [...descendantPks(this.db, this.pkOf(id)), this.pkOf(id)]) {
        deleteSession(this.db, pk);
        this.leases.forget(pk);
      }
    });
  }

  /** Deletes the session for good if it is still unstarted (isUnstarted) and no other process holds it; false otherwise. */
  deleteUnstarted(id: string): boolean {
    return this.write(() => {
      const pk = this.pkOf(id);
      if (!isUnstarted(readMeta(this.db, id)) || this.leases.foreignHolder(pk)) return false;
      deleteSession(this.db, pk);
      this.leases.forget(pk);
      return true;
    });
  }

  // ---- the Trash (trash.ts, docs/DESIGN.md#trash) ----

  /** Moves the session to the Trash, its rows kept: gone from every list, search and read at once; refused while another process holds its lease. */
  trash(id: string, now = new Date()): void {
    this.whileFree(id, () => {
      const pk = this.pkOf(id);
      // Its sub-agents go with it, on the same date, so they come back with it (those already there keep theirs).
      const live = descendants(this.db, pk).filter((d) => d.deleted_at === null);
      for (const each of [pk, ...live.map((d) => d.pk)]) {
        setSessionColumns(this.db, each, { deleted_at: now.toISOString() });
        this.leases.letGo(each);
      }
    });
  }

  /** A unique prefix of a trashed session's id (or the full id) to the full id. */
  resolveTrashedId(idOrPrefix: string): string {
    const prefix = idOrPrefix.trim();
    const ids = prefix ? matchTrashed(this.db, prefix) : [];
    const [only] = ids;
    if (only === undefined) throw new LoomError(`No session in the Trash matches "${prefix}".`, 'unknown_session');
    if (ids.length > 1) throw new LoomError(`Session id "${prefix}" is ambiguous in the Trash; give more characters.`, 'ambiguous_session');
    return only;
  }

  /** Whether the session is there (another process may have deleted it since it was opened here). */
  has(id: string): boolean {
    return isLive(this.db, id);
  }

  isTrashed(id: string): boolean {
    return trashedPk(this.db, id) !== undefined;
  }

  /** Brings a trashed session back exactly as it was (title, archived, pins, records, place in the list). */
  restore(id: string): SessionMeta {
    this.write(() => {
      const pk = this.trashedPkOf(id);
      const at = trashedAt(this.db, pk);
      for (const each of [
        pk,
        ...descendants(this.db, pk)
          .filter((d) => d.deleted_at === at)
          .map((d) => d.pk),
      ]) {
        setSessionColumns(this.db, each, { deleted_at: null });
      }
    });
    return this.getMeta(id);
  }

  /** Deletes a trashed session and its sub-agents for good: its forks take over the rows they read from it. */
  purge(id: string): void {
    this.write(() => {
      const pk = this.trashedPkOf(id);
      for (const each of [...descendantPks(this.db, pk), pk]) deleteSession(this.db, each);
    });
  }

  /** The Trash, most recently deleted first, with when each is purged when kept `days`. */
  listTrash(days = DEFAULT_TRASH_DAYS): TrashedSession[] {
    return listTrashed(this.db, days);
  }

  /** Purges every session in the Trash for `days` or longer; returns how many. */
  purgeExpired(days = DEFAULT_TRASH_DAYS, now = Date.now()): number {
    return this.write(() => {
      const pks = expiredPks(this.db, days, now);
      for (const pk of pks) deleteSession(this.db, pk);
      return pks.length;
    });
  }

  /** JSON (docs/DESIGN.md#export-format), Markdown or a self-contained HTML page; secrets redacted. */
  async exportSession(id: string, format: ExportFormat = 'json'): Promise<string> {
    if (!EXPORT_FORMATS.includes(format)) {
      throw new LoomError(`Unknown export format "${format}"; use ${EXPORT_FORMATS.join(', ')}.`, 'bad_format');
    }
    // Read in one transaction, rendered after it: the HTML renderer loads on first use.
    const source = this.db.transaction(() => ({
      record: this.get(id),
      tree: treeFields(this.db, this.pkOf(id)),
      children: (format === 'json' ? this.children(id) : []).map(({ id: childId, child }) => ({
        link: child,
        record: this.get(childId),
        tree: treeFields(this.db, this.pkOf(childId)),
      })),
    }))();
    return renderExport(source, format);
  }

  /**
   * A JSON export (parseExport) as a new session: new id, status saved, tool calls without a
   * result closed (context-rules.ts); its sub-agents new sessions linked to it, all in one transaction.
   */
  importSession({ session, closedCalls, children }: ParsedExport): ImportedSession {
    const id = newSessionId();
    const imported = children.map((child) => ({ ...child, id: newSessionId() }));
    this.write(() => {
      steps.insertImported(this.db, id, session);
      for (const child of imported) steps.insertImported(this.db, child.id, child.session, child.link && { parentId: id, ...child.link });
    });
    const metas = (linked: boolean) => imported.filter((child) => (child.link !== null) === linked).map((child) => this.getMeta(child.id));
    return {
      meta: this.getMeta(id),
      closedCalls: closedCalls + children.reduce((n, c) => n + c.closedCalls, 0),
      children: metas(true),
      unlinked: metas(false),
    };
  }

  /** Runs `fn` (calls of this store) in one write transaction: all of it is committed, or none of it. */
  batch<T>(fn: () => T): T {
    return this.write(fn);
  }

  /** `fn` in one write transaction once no other live owner holds the lease (docs/DESIGN.md#who-may-change-a-session); else "Session ID is in use by pid N.". */
  whileFree<T>(id: string, fn: () => T): T {
    return this.write(() => {
      const holder = this.leases.foreignHolder(this.pkOf(id));
      if (holder) throw inUseError(id, holder.pid);
      return fn();
    });
  }

  /**
   * Where the session's file snapshots are kept (security/snapshots.ts): in the store, so
   * its Changed files and their revert outlive the process. Each call reads or writes at once.
   */
  fileOriginals(id: string): OriginalsKeeper {
    const pk = this.pkOf(id);
    return {
      has: (absPath) => hasFileSnapshot(this.db, pk, absPath),
      set: (absPath, original) => this.write(() => addFileSnapshot(this.db, pk, absPath, original)),
      entries: () => listFileSnapshots(this.db, pk),
    };
  }

  /** Takes the session's single-writer lease; LoomError while another live owner holds it. */
  acquireLease(id: string, owner: string = defaultOwner()): Lease {
    return this.leases.acquire(this.pkOf(id), id, owner);
  }

  // ---- internals ----

  /** IMMEDIATE: take the write lock up front, so a concurrent writer waits (busy_timeout) instead of failing mid-transaction. */
  private write<T>(fn: () => T): T {
    const result = this.db.transaction(fn).immediate();
    this.maintenance.schedule();
    return result;
  }

  private pkOf(id: string): number {
    return pkOf(this.db, id);
  }

  private trashedPkOf(id: string): number {
    const pk = trashedPk(this.db, id);
    if (pk === undefined) throw new LoomError(`No session in the Trash with id "${id}".`, 'unknown_session');
    return pk;
  }

  /** Sets columns of one session; `touch` also makes it the most recently updated. */
  private update(id: string, values: Partial<SessionColumns>, touch: boolean): void {
    this.write(() => setSessionColumns(this.db, this.pkOf(id), touch ? { ...values, updated_at: nextUpdateTime(this.db) } : values));
  }
}
