import type Database from 'better-sqlite3';
import {
  type BranchPoint,
  type SessionFamily,
  type CallKind,
  type CallUsage,
  type ChatMessage,
  type Compaction,
  type CompactionDetail,
  type MessageFacts,
  type ModelChange,
  type Pin,
  type PlanState,
  type SearchHit,
  type SessionCursor,
  type SessionMeta,
  type SessionPage,
  type SessionRecord,
  type SessionStatus,
  type SessionUsage,
} from '../../shared/types';
import { LoomError } from '../errors';
import { openDatabase } from './db';
import { renderExport, type TreeFields } from './export';
import { EXPORT_FORMATS, type ExportFormat } from '../../shared/export-name';
import type { ParsedExport } from './export-schema';
import { LeaseKeeper, defaultOwner, inUseError, type Lease } from './leases';
import { META_COLUMNS, metaFromRow, type MetaRow } from './rows';
import { searchSessions, updateSearchIndex } from './search';
import { newSessionId } from './session-id';
import { listDetails, recordFacts, undoLast } from './repositories/compaction-records';
import { deleteSession, forkRows, inheritRecords } from './repositories/forks';
import { addPin, listPins, removePin } from './repositories/pins';
import { addUsage, insertCompaction, insertModelChange, insertStart, listCompactions, listModelChanges, readUsage } from './repositories/records';
import { insertSession, nextUpdateTime, setSessionColumns, type SessionColumns } from './repositories/sessions';
import { appendTo, compactionStart, insertImported, insertMessage, messageCount, writeContext } from './session-writes';
import { branchesAt, branchPoints, familyOf } from './session-tree';
import { prepared } from './statements';
import { currentStart, nonSystemCountFrom, readContext, readTranscript, readTranscriptFacts } from './transcript-chain';

export type { Lease } from './leases';

/** What the caller knows of a message it appends; the store adds when (MessageFacts.at). */
export type AppendFacts = Omit<MessageFacts, 'at'>;

/** A message as the store committed it: its transcript position (`seq`, never reused) and its facts. */
export interface AppendedMessage {
  seq: number;
  facts: MessageFacts;
}

export interface ImportedSession {
  meta: SessionMeta;
  /** Tool calls the export left without a result, closed on import. */
  closedCalls: number;
}

const EMPTY_PLAN: PlanState = { todos: [], scratchpad: '' };

/** How long after a write the store catches up on search indexing and checkpointing. */
const MAINTENANCE_DELAY_MS = 2_000;

function unknownSession(id: string): LoomError {
  return new LoomError(`No session with id "${id}".`, 'unknown_session');
}

/**
 * Durable sessions in <dataDir>/loom.db: metadata, the full transcript, the working
 * context, compactions, usage, plan and leases. Every write is one transaction; every
 * method taking an id throws a LoomError for an unknown one.
 */
export class SessionStore {
  private readonly leases: LeaseKeeper;
  private maintenanceTimer: NodeJS.Timeout | undefined;

  private constructor(
    readonly db: Database.Database,
    readonly dataDir: string,
  ) {
    this.leases = new LeaseKeeper(db);
  }

  /**
   * Opens (creating or migrating) <dataDir>/loom.db; LoomError on a corrupt or foreign file.
   */
  static open(dataDir: string): SessionStore {
    return new SessionStore(openDatabase(dataDir), dataDir);
  }

  /** Brings the search index up to date, releases this store's leases, closes the database. */
  close(): void {
    if (!this.db.open) return;
    clearTimeout(this.maintenanceTimer);
    this.maintain();
    this.leases.releaseAll();
    this.db.close();
  }

  /** Indexes messages appended since the last search; returns how many (search does this itself). */
  updateSearchIndex(): number {
    return updateSearchIndex(this.db);
  }

  // ---- creating and writing ----

  /** `parentId`: a session this one came from without sharing its messages (an imported sub-agent's). */
  create(init: { model?: string | null; cwd?: string | null; title?: string | null; messages?: ChatMessage[]; parentId?: string | null } = {}): SessionMeta {
    const id = newSessionId();
    this.write(() => {
      const at = nextUpdateTime(this.db);
      const pk = insertSession(this.db, {
        id,
        parent_id: init.parentId ?? null,
        title: init.title ?? null,
        summary: null,
        status: 'active',
        archived: 0,
        created_at: at,
        updated_at: at,
        message_count: 0,
        model: init.model ?? null,
        cwd: init.cwd ?? null,
        plan: JSON.stringify(EMPTY_PLAN),
      });
      for (const message of init.messages ?? []) this.appendTo(pk, message, at);
    });
    return this.getMeta(id);
  }

  /**
   * Adds the message to the transcript (and so to the derived working context), committed
   * before returning, with its facts (the time now, and what the caller knows of it). Returns
   * where it went and the facts.
   */
  appendMessage(id: string, message: ChatMessage, facts: AppendFacts = {}): AppendedMessage {
    return this.write(() => {
      const at = nextUpdateTime(this.db);
      return this.appendTo(this.pkOf(id), message, at, facts);
    });
  }

  /**
   * appendMessage for several messages, in order, in one transaction: an import's run of
   * messages, `facts[i]` what the source recorded of message i (its own time, not the import's).
   */
  appendMessages(id: string, messages: readonly ChatMessage[], facts: readonly (Partial<MessageFacts> | undefined)[] = []): void {
    this.write(() => {
      const pk = this.pkOf(id);
      const now = nextUpdateTime(this.db);
      messages.forEach((message, i) => {
        const { at = now, ...known } = facts[i] ?? {};
        this.appendTo(pk, message, at, known);
      });
    });
  }

  /** Replaces the working context (recorded as a context start); the transcript is untouched. */
  replaceContext(id: string, messages: ChatMessage[]): void {
    this.write(() => {
      const pk = this.pkOf(id);
      writeContext(this.db, pk, messages);
      this.touch(pk);
    });
  }

  /**
   * The new working context, the compaction record and its usage, in one transaction. The
   * record's transcript_index is the transcript length now (any given one is ignored).
   * `cut`: where in the context before it the kept part began (the compactor's cut), so the
   * start is recorded from that position without reading the transcript.
   */
  recordCompaction(
    id: string,
    c: { messages: ChatMessage[]; compaction: Compaction; usage?: CallUsage; cut?: number; headLength?: number; steps?: number },
  ): void {
    this.write(() => {
      const pk = this.pkOf(id);
      const before = currentStart(this.db, pk);
      const headLength = c.headLength ?? 1;
      const start = c.cut === undefined ? null : compactionStart(this.db, pk, c.messages, c.cut, headLength);
      const startId = start ? insertStart(this.db, pk, messageCount(this.db, pk), start) : writeContext(this.db, pk, c.messages);
      const compactionId = insertCompaction(this.db, pk, { ...c.compaction, transcript_index: messageCount(this.db, pk) });
      const carried = headLength > 1 ? c.messages[2] : undefined;
      recordFacts(this.db, compactionId, {
        summarisedFrom: before.keptFrom,
        keptFrom: currentStart(this.db, pk).keptFrom,
        steps: c.steps ?? 1,
        carried: carried?.role === 'user' && typeof carried.content === 'string' ? carried.content : null,
        startId,
      });
      if (c.usage) addUsage(this.db, pk, 'compaction', c.usage, 1);
      this.touch(pk);
    });
  }

  /**
   * Where transcript message `seq` is in the working context: null when it is not there (a
   * compaction summarised it, or it is a system prompt). The context ends with the
   * transcript's non-prompt messages from its start on, so counting those after `seq` says.
   */
  contextIndexOf(id: string, seq: number): number | null {
    const pk = this.pkOf(id);
    const start = currentStart(this.db, pk);
    const message = readTranscript(this.db, pk, seq, 1)[0];
    if (!Number.isInteger(seq) || seq < start.keptFrom || !message || message.role === 'system') return null;
    return readContext(this.db, pk).length - nonSystemCountFrom(this.db, pk, seq);
  }

  /** Each compaction with what the view of what it kept and dropped shows, oldest first. */
  getCompactionDetails(id: string): CompactionDetail[] {
    return listDetails(this.db, this.pkOf(id));
  }

  /**
   * Undoes the last compaction: the working context before it comes back exactly (with what
   * was appended since); the record stays, marked undone. Returns the context.
   */
  undoCompaction(id: string): ChatMessage[] {
    return this.write(() => {
      const pk = this.pkOf(id);
      undoLast(this.db, pk, messageCount(this.db, pk));
      return readContext(this.db, pk);
    });
  }

  /**
   * Makes `model` the session's model for its next requests and records the change (when,
   * from, to, where in the transcript). Returns false, recording nothing, when it already is.
   */
  setModel(id: string, model: string): boolean {
    return this.write(() => {
      const pk = this.pkOf(id);
      const { model: from } = this.sql('SELECT model FROM sessions WHERE pk = ?').get(pk) as { model: string | null };
      if (from === model) return false;
      setSessionColumns(this.db, pk, { model });
      insertModelChange(this.db, pk, { at: new Date().toISOString(), from, to: model, transcript_index: messageCount(this.db, pk) });
      return true;
    });
  }

  recordUsage(id: string, kind: CallKind, usage: CallUsage): void {
    this.write(() => addUsage(this.db, this.pkOf(id), kind, usage, 1));
  }

  savePlan(id: string, plan: PlanState): void {
    this.update(id, { plan: JSON.stringify(plan) }, true);
  }

  /**
   * The folder a session is opened in and the system prompt built for it. The folder is
   * recorded as the session's cwd. A prompt other than the context's system message is
   * appended to the transcript (the one it replaces stays there, the record of what the
   * model was told until now) and becomes the first message of the working context.
   * Bookkeeping, like the status: the session does not move up the list.
   */
  setProject(id: string, project: { cwd: string; systemPrompt: string }): void {
    this.write(() => {
      const pk = this.pkOf(id);
      setSessionColumns(this.db, pk, { cwd: project.cwd });
      const context = readContext(this.db, pk);
      if (context[0]?.role === 'system' && context[0].content === project.systemPrompt) return;
      const prompt: ChatMessage = { role: 'system', content: project.systemPrompt };
      const seq = messageCount(this.db, pk);
      insertMessage(this.db, pk, seq, prompt, { at: new Date().toISOString() });
      setSessionColumns(this.db, pk, { message_count: seq + 1 });
      // In place of the old prompt, or before the first message.
      writeContext(this.db, pk, [prompt, ...(context[0]?.role === 'system' ? context.slice(1) : context)]);
    });
  }

  /** Status and the archive flag are bookkeeping: they do not move a session up the list. */
  setStatus(id: string, status: SessionStatus): void {
    this.update(id, { status }, false);
  }

  /** The user title; blank clears it (lists then show the summary). */
  rename(id: string, title: string): void {
    this.update(id, { title: title.trim() || null }, true);
  }

  /** The model-written listing summary. */
  setSummary(id: string, summary: string): void {
    this.update(id, { summary: summary.trim() || null }, true);
  }

  setArchived(id: string, archived: boolean): void {
    this.update(id, { archived: archived ? 1 : 0 }, false);
  }

  // ---- reading ----

  /** A unique id prefix (or a full id) to the full id. */
  resolveId(idOrPrefix: string): string {
    const prefix = idOrPrefix.trim();
    if (!prefix) throw new LoomError('No session id given.', 'unknown_session');
    if (this.sql('SELECT 1 FROM sessions WHERE id = ?').get(prefix)) return prefix;
    const rows = this.sql(`SELECT id FROM sessions WHERE id >= ? AND id < ? ORDER BY id LIMIT 2`).all(prefix, `${prefix}\uffff`) as { id: string }[];
    const [only] = rows;
    if (only === undefined) throw new LoomError(`No session matches "${prefix}".`, 'unknown_session');
    if (rows.length > 1) throw new LoomError(`Session id "${prefix}" is ambiguous; give more characters.`, 'ambiguous_session');
    return only.id;
  }

  getMeta(id: string): SessionMeta {
    const row = this.sql(`SELECT ${META_COLUMNS} FROM sessions s WHERE s.id = ?`).get(id) as MetaRow | undefined;
    if (!row) throw unknownSession(id);
    return metaFromRow(row);
  }

  /** The whole record, read from one snapshot. */
  get(id: string): SessionRecord {
    return this.db.transaction(() => ({
      ...this.getMeta(id),
      messages: this.getContext(id),
      transcript: this.getTranscript(id),
      compactions: this.getCompactions(id),
      plan: this.getPlan(id),
      usage: this.getUsage(id),
      transcript_facts: this.getTranscriptFacts(id),
      model_changes: this.getModelChanges(id),
    }))();
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

  /** In order; `transcript_index` only where it is known (older records may lack it). */
  getCompactions(id: string): Compaction[] {
    return listCompactions(this.db, this.pkOf(id));
  }

  getUsage(id: string): SessionUsage {
    return readUsage(this.db, this.pkOf(id));
  }

  /** What the user pinned in the session, oldest first. */
  getPins(id: string): Pin[] {
    return listPins(this.db, this.pkOf(id));
  }

  /** Pins transcript message `seq` or a note; returns the pin's id. Bookkeeping: the session keeps its place in the list. */
  pin(id: string, target: { seq: number } | { note: string }): number {
    return this.write(() => {
      const pk = this.pkOf(id);
      return addPin(this.db, pk, 'seq' in target ? { seq: target.seq, length: messageCount(this.db, pk) } : target);
    });
  }

  /** False when the session has no such pin. */
  unpin(id: string, pinId: number): boolean {
    return this.write(() => removePin(this.db, this.pkOf(id), pinId));
  }

  getPlan(id: string): PlanState {
    const row = this.sql('SELECT plan FROM sessions WHERE id = ?').get(id) as { plan: string } | undefined;
    if (!row) throw unknownSession(id);
    return JSON.parse(row.plan) as PlanState;
  }

  /**
   * Newest updated first (then by id, so ties keep one order); archived sessions only when
   * asked for; `after`: only the sessions listed after that place (keyset paging).
   */
  list(opts: { includeArchived?: boolean; limit?: number; after?: SessionCursor } = {}): SessionMeta[] {
    const conditions = [...(opts.includeArchived ? [] : ['s.archived = 0']), ...(opts.after ? ['(s.updated_at, s.id) < (@updated_at, @id)'] : [])];
    const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
    const rows = this.sql(`SELECT ${META_COLUMNS} FROM sessions s ${where} ORDER BY s.updated_at DESC, s.id DESC LIMIT @limit`).all({
      limit: opts.limit ?? -1,
      ...(opts.after && { updated_at: opts.after.updated_at, id: opts.after.id }),
    }) as MetaRow[];
    return rows.map(metaFromRow);
  }

  /** One page of the list (`limit` sessions after `after`) and the cursor of the next one. */
  listPage(opts: { includeArchived?: boolean; limit: number; after?: SessionCursor }): SessionPage {
    // One row more than asked says whether another page follows, without a count.
    const rows = this.list({ ...opts, limit: opts.limit + 1 });
    const sessions = rows.slice(0, opts.limit);
    const last = sessions.at(-1);
    return { sessions, next: rows.length > opts.limit && last ? { updated_at: last.updated_at, id: last.id } : null };
  }

  /** The most recently updated unarchived session. */
  mostRecent(): SessionMeta | undefined {
    return this.list({ limit: 1 })[0];
  }

  /** Full-text search over titles, summaries and transcripts; one ranked hit per session. */
  search(query: string, opts: { includeArchived?: boolean; limit?: number; offset?: number } = {}): SearchHit[] {
    return searchSessions(this.db, query, opts);
  }

  // ---- whole-session operations ----

  /**
   * A new session sharing the first `at` transcript messages (default: all) with this one:
   * it reads them from their owner, so no message row is copied (docs/DESIGN.md#branches).
   * It inherits the compactions and the context start recorded by then; usage only when it
   * forks the whole session (totals cannot be split by position). Status saved, not archived.
   */
  fork(id: string, at?: number): SessionMeta {
    const newId = newSessionId();
    this.write(() => {
      const source = this.pkOf(id);
      const length = messageCount(this.db, source);
      const point = at ?? length;
      if (!Number.isInteger(point) || point < (at === undefined ? 0 : 1) || point > length) {
        throw new LoomError(`Cannot fork at message ${point}: session ${id} has ${length} transcript messages (count from 1).`, 'bad_fork_point');
      }
      const now = nextUpdateTime(this.db);
      const fork = forkRows(this.db, source, point, { id: newId, created_at: now, updated_at: now, message_count: point, note: null });
      inheritRecords(this.db, fork, source, point, length);
    });
    return this.getMeta(newId);
  }

  /**
   * A new branch under message `at` of this session: a fork there with `message` appended,
   * in one transaction (edit-and-resend: the edited message; regenerate: fork at the user
   * message, then run the model in the fork).
   */
  appendBranch(id: string, at: number, message: ChatMessage): SessionMeta {
    const branch = this.db
      .transaction(() => {
        const meta = this.fork(id, at);
        this.appendMessage(meta.id, message);
        return meta.id;
      })
      .immediate();
    return this.getMeta(branch);
  }

  /**
   * The branches sharing the first `at` messages of this session and going their own way
   * after them, oldest first (docs/DESIGN.md#branches): the session those messages
   * belong to if it goes on, and every fork made at that point. A "2 / 3" switcher's list.
   */
  branchesAt(id: string, at: number): SessionMeta[] {
    return branchesAt(this.db, this.pkOf(id), at);
  }

  /**
   * Every place in this session's transcript where other branches go their own way: `at`,
   * the index of the first message that differs; the branches with a message there, oldest
   * first (branchesAt, less forks that stop at `at`); and which of them this session follows.
   * Read from the chain's segments, so a long transcript costs one query per segment.
   */
  branchPoints(id: string): BranchPoint[] {
    return this.db.transaction(() => {
      const pk = this.pkOf(id);
      return branchPoints(this.db, pk, messageCount(this.db, pk));
    })();
  }

  /**
   * The sessions related to this one by forking (parent_id): the parent (null when there is
   * none or it was deleted), the other forks of the same parent, and its own forks; oldest
   * first, at most `limit` of each.
   */
  family(id: string, limit = 200): SessionFamily {
    return familyOf(this.db, this.getMeta(id), limit);
  }

  /** Removes the session and all its rows; refused while another live process holds its lease. */
  delete(id: string): void {
    this.write(() => {
      const pk = this.pkOf(id);
      const holder = this.leases.foreignHolder(pk);
      if (holder) throw inUseError(id, holder.pid);
      deleteSession(this.db, pk);
      this.leases.forget(pk);
    });
  }

  /** JSON (docs/DESIGN.md#export-format), Markdown or a self-contained HTML page; secrets redacted. */
  exportSession(id: string, format: ExportFormat = 'json'): string {
    if (!EXPORT_FORMATS.includes(format)) {
      throw new LoomError(`Unknown export format "${format}"; use ${EXPORT_FORMATS.join(', ')}.`, 'bad_format');
    }
    return this.db.transaction(() => renderExport(this.get(id), this.treeFields(id), format))();
  }

  /**
   * Imports a JSON export, read by parseExport (export-schema.ts), as a new session (new id,
   * status saved, content as given, but for tool calls without a result, closed in the
   * working context: see context-rules.ts). A refused export leaves the store untouched.
   */
  importSession({ session, closedCalls }: ParsedExport): ImportedSession {
    const id = newSessionId();
    this.write(() => insertImported(this.db, id, session));
    return { meta: this.getMeta(id), closedCalls };
  }

  /** Runs `fn` (calls of this store) in one write transaction: all of it is committed, or none of it. */
  batch<T>(fn: () => T): T {
    return this.write(fn);
  }

  /** A session imported from another agent keeps the dates it had there (docs/DESIGN.md#importing-from-other-agents). */
  setDates(id: string, createdAt: string, updatedAt: string): void {
    this.update(id, { created_at: createdAt, updated_at: updatedAt }, false);
  }

  /**
   * Runs `fn` in one write transaction once no other live owner holds the session's lease,
   * so the check and the change cannot be split by another writer (docs/DESIGN.md#who-may-change-a-session); else the LoomError "Session ID is in use by pid N.".
   */
  whileFree<T>(id: string, fn: () => T): T {
    return this.write(() => {
      const holder = this.leases.foreignHolder(this.pkOf(id));
      if (holder) throw inUseError(id, holder.pid);
      return fn();
    });
  }

  /** Takes the session's single-writer lease; LoomError while another live owner holds it. */
  acquireLease(id: string, owner: string = defaultOwner()): Lease {
    return this.leases.acquire(this.pkOf(id), id, owner);
  }

  // ---- internals ----

  /** Export version 2's fork point (the session the first `at` messages are read from) and context start. */
  private treeFields(id: string): TreeFields {
    const pk = this.pkOf(id);
    const fork = this.sql(`SELECT p.id AS parent_id, s.fork_at AS at FROM sessions s JOIN sessions p ON p.pk = s.fork_parent_pk WHERE s.pk = ?`).get(pk) as
      TreeFields['fork'] | undefined;
    const start = currentStart(this.db, pk);
    return { fork: fork ?? null, context_start: { kept_from: start.keptFrom, with_system: start.withSystem, head: start.head } };
  }

  private sql(source: string): Database.Statement {
    return prepared(this.db, source);
  }

  /** IMMEDIATE: take the write lock up front, so a concurrent writer waits (busy_timeout) instead of failing mid-transaction. */
  private write<T>(fn: () => T): T {
    const result = this.db.transaction(fn).immediate();
    this.scheduleMaintenance();
    return result;
  }

  private pkOf(id: string): number {
    const row = this.sql('SELECT pk FROM sessions WHERE id = ?').get(id) as { pk: number } | undefined;
    if (!row) throw unknownSession(id);
    return row.pk;
  }

  /** Sets columns of one session; `touch` also makes it the most recently updated. */
  private update(id: string, values: Partial<SessionColumns>, touch: boolean): void {
    this.write(() => setSessionColumns(this.db, this.pkOf(id), touch ? { ...values, updated_at: nextUpdateTime(this.db) } : values));
  }

  private touch(pk: number): void {
    setSessionColumns(this.db, pk, { updated_at: nextUpdateTime(this.db) });
  }

  private appendTo(pk: number, message: ChatMessage, at: string, facts: AppendFacts = {}): AppendedMessage {
    const stamped = { at, ...facts };
    return { seq: appendTo(this.db, pk, message, stamped), facts: stamped };
  }

  /**
   * Work kept off the write path, done shortly after writes stop: index the messages
   * appended since the last search, and copy the WAL back into the database.
   */
  private scheduleMaintenance(): void {
    if (this.maintenanceTimer) return;
    this.maintenanceTimer = setTimeout(() => {
      this.maintenanceTimer = undefined;
      this.maintain();
    }, MAINTENANCE_DELAY_MS);
    this.maintenanceTimer.unref();
  }

  private maintain(): void {
    if (!this.db.open || this.db.inTransaction) return;
    try {
      updateSearchIndex(this.db);
      this.db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Another process holds the write lock: the next search or quiet moment catches up.
    }
  }
}
