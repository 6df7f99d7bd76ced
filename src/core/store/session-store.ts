import type Database from 'better-sqlite3';
import {
  CALL_KINDS,
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
  type UsageTotals,
} from '../../shared/types';
import { LoomError } from '../errors';
import { openDatabase } from './db';
import { renderExport, type TreeFields } from './export';
import { EXPORT_FORMATS, type ExportFormat } from '../../shared/export-name';
import type { ExportedSession, ParsedExport } from './export-schema';
import { LeaseKeeper, defaultOwner, inUseError, type Lease } from './leases';
import { derive, normalized, sameMessages, startFor, type ContextStart } from './context-start';
import { toColumns } from './messages';
import { META_COLUMNS, metaFromRow, type MetaRow } from './rows';
import { searchSessions, updateSearchIndex } from './search';
import { newSessionId } from './session-id';
import { listDetails, recordFacts, undoLast } from './compaction-records';
import { addPin, listPins, removePin } from './pins';
import { prepared } from './statements';
import {
  currentStart,
  detachForks,
  forkTarget,
  insertStart,
  lastSystemSeqIn,
  nonSystemCountFrom,
  nthNonSystemSeq,
  readContext,
  readTranscript,
  readTranscriptFacts,
  segmentsOf,
  startAtOrBefore,
} from './transcript-chain';

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
      const at = this.updateTime();
      const pk = this.insertSession({
        id,
        parent_id: init.parentId ?? null,
        title: init.title ?? null,
        summary: null,
        status: 'active',
        archived: 0,
        created_at: at,
        updated_at: at,
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
      const at = this.updateTime();
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
      const now = this.updateTime();
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
      this.writeContext(pk, messages);
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
      const start = c.cut === undefined ? null : this.compactionStart(pk, c.messages, c.cut, headLength);
      const startId = start ? insertStart(this.db, pk, this.messageCount(pk), start) : this.writeContext(pk, c.messages);
      const compactionId = this.insertCompaction(pk, { ...c.compaction, transcript_index: this.messageCount(pk) });
      const carried = headLength > 1 ? c.messages[2] : undefined;
      recordFacts(this.db, compactionId, {
        summarisedFrom: before.keptFrom,
        keptFrom: currentStart(this.db, pk).keptFrom,
        steps: c.steps ?? 1,
        carried: carried?.role === 'user' && typeof carried.content === 'string' ? carried.content : null,
        startId,
      });
      if (c.usage) this.addUsage(pk, 'compaction', c.usage, 1);
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
      undoLast(this.db, pk, this.messageCount(pk));
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
      this.sql('UPDATE sessions SET model = ? WHERE pk = ?').run(model, pk);
      this.insertModelChange(pk, { at: new Date().toISOString(), from, to: model, transcript_index: this.messageCount(pk) });
      return true;
    });
  }

  recordUsage(id: string, kind: CallKind, usage: CallUsage): void {
    this.write(() => this.addUsage(this.pkOf(id), kind, usage, 1));
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
      this.sql('UPDATE sessions SET cwd = ? WHERE pk = ?').run(project.cwd, pk);
      const context = readContext(this.db, pk);
      if (context[0]?.role === 'system' && context[0].content === project.systemPrompt) return;
      const prompt: ChatMessage = { role: 'system', content: project.systemPrompt };
      const seq = this.messageCount(pk);
      this.insertTranscript(pk, seq, prompt, { at: new Date().toISOString() });
      this.sql('UPDATE sessions SET message_count = ? WHERE pk = ?').run(seq + 1, pk);
      // In place of the old prompt, or before the first message.
      this.writeContext(pk, [prompt, ...(context[0]?.role === 'system' ? context.slice(1) : context)]);
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
    if (rows.length === 0) throw new LoomError(`No session matches "${prefix}".`, 'unknown_session');
    if (rows.length > 1) throw new LoomError(`Session id "${prefix}" is ambiguous; give more characters.`, 'ambiguous_session');
    return rows[0].id;
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
    return this.sql('SELECT at, from_model AS "from", to_model AS "to", transcript_index FROM model_changes WHERE session_pk = ? ORDER BY id').all(
      this.pkOf(id),
    ) as ModelChange[];
  }

  /** In order; `transcript_index` only where it is known (older records may lack it). */
  getCompactions(id: string): Compaction[] {
    const rows = this.sql(`SELECT at, before_tokens, after_tokens, summary, transcript_index FROM compactions WHERE session_pk = ? ORDER BY id`).all(
      this.pkOf(id),
    ) as (Omit<Compaction, 'transcript_index'> & { transcript_index: number | null })[];
    return rows.map(({ transcript_index, ...c }) => (transcript_index === null ? c : { ...c, transcript_index }));
  }

  getUsage(id: string): SessionUsage {
    const rows = this.sql(`SELECT kind, calls, prompt_tokens, completion_tokens, cost_usd FROM usage WHERE session_pk = ?`).all(
      this.pkOf(id),
    ) as (UsageTotals & { kind: CallKind })[];
    const zero = (): UsageTotals => ({ calls: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 });
    const usage: SessionUsage = { ...zero(), by_kind: { chat: zero(), compaction: zero(), summary: zero() } };
    for (const { kind, ...totals } of rows) {
      usage.by_kind[kind] = totals;
      usage.calls += totals.calls;
      usage.prompt_tokens += totals.prompt_tokens;
      usage.completion_tokens += totals.completion_tokens;
      usage.cost_usd += totals.cost_usd;
    }
    return usage;
  }

  /** What the user pinned in the session, oldest first. */
  getPins(id: string): Pin[] {
    return listPins(this.db, this.pkOf(id));
  }

  /** Pins transcript message `seq` or a note; returns the pin's id. Bookkeeping: the session keeps its place in the list. */
  pin(id: string, target: { seq: number } | { note: string }): number {
    return this.write(() => {
      const pk = this.pkOf(id);
      return addPin(this.db, pk, 'seq' in target ? { seq: target.seq, length: this.messageCount(pk) } : target);
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
      const length = this.messageCount(source);
      const point = at ?? length;
      if (!Number.isInteger(point) || point < (at === undefined ? 0 : 1) || point > length) {
        throw new LoomError(`Cannot fork at message ${point}: session ${id} has ${length} transcript messages (count from 1).`, 'bad_fork_point');
      }
      this.inheritRecords(this.insertFork(newId, source, point), source, point, length);
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
    const owner = forkTarget(this.db, this.pkOf(id), at);
    const rows = this.sql(
      `SELECT ${META_COLUMNS} FROM sessions s WHERE (s.pk = ? AND s.message_count > ?) OR (s.fork_parent_pk = ? AND s.fork_at = ?) ORDER BY s.pk`,
    ).all(owner, at, owner, at) as MetaRow[];
    return rows.map(metaFromRow);
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
      const length = this.messageCount(pk);
      const points: BranchPoint[] = [];
      for (const segment of segmentsOf(this.db, pk)) {
        const ats = this.sql(
          `SELECT DISTINCT fork_at FROM sessions WHERE fork_parent_pk = ? AND fork_at > ? AND fork_at <= ? AND fork_at < ? AND message_count > fork_at ORDER BY fork_at`,
        ).all(segment.pk, segment.from, segment.to, length) as { fork_at: number }[];
        for (const { fork_at: at } of ats) {
          const rows = this.sql(
            `SELECT s.pk, ${META_COLUMNS} FROM sessions s
              WHERE s.message_count > ? AND (s.pk = ? OR (s.fork_parent_pk = ? AND s.fork_at = ?)) ORDER BY s.pk`,
          ).all(at, segment.pk, segment.pk, at) as (MetaRow & { pk: number })[];
          if (rows.length < 2) continue;
          const mine = forkTarget(this.db, pk, at + 1);
          points.push({
            at,
            branches: rows.map(metaFromRow),
            current: Math.max(
              0,
              rows.findIndex((row) => row.pk === mine),
            ),
          });
        }
      }
      return points;
    })();
  }

  /**
   * The sessions related to this one by forking (parent_id): the parent (null when there is
   * none or it was deleted), the other forks of the same parent, and its own forks; oldest
   * first, at most `limit` of each.
   */
  family(id: string, limit = 200): SessionFamily {
    const meta = this.getMeta(id);
    const byParent = (parentId: string) =>
      (this.sql(`SELECT ${META_COLUMNS} FROM sessions s WHERE s.parent_id = ? AND s.id <> ? ORDER BY s.pk LIMIT ?`).all(parentId, id, limit) as MetaRow[]).map(
        metaFromRow,
      );
    const parentRow =
      meta.parent_id === null ? undefined : (this.sql(`SELECT ${META_COLUMNS} FROM sessions s WHERE s.id = ?`).get(meta.parent_id) as MetaRow | undefined);
    return {
      parent: parentRow ? metaFromRow(parentRow) : null,
      siblings: meta.parent_id === null ? [] : byParent(meta.parent_id),
      children: byParent(id),
    };
  }

  /** Removes the session and all its rows; refused while another live process holds its lease. */
  delete(id: string): void {
    this.write(() => {
      const pk = this.pkOf(id);
      const holder = this.leases.foreignHolder(pk);
      if (holder) throw inUseError(id, holder.pid);
      detachForks(this.db, pk);
      this.sql('DELETE FROM sessions WHERE pk = ?').run(pk);
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
    this.write(() => this.insertImported(id, session));
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
  private update(id: string, values: Record<string, string | number | null>, touch: boolean): void {
    this.write(() => {
      const all = touch ? { ...values, updated_at: this.updateTime() } : values;
      const assignments = Object.keys(all)
        .map((column) => `${column} = @${column}`)
        .join(', ');
      const { changes } = this.sql(`UPDATE sessions SET ${assignments} WHERE id = @id`).run({ ...all, id });
      if (changes === 0) throw unknownSession(id);
    });
  }

  /**
   * Now, or just after the latest update if the clock has not moved on (same millisecond,
   * or set back): the session changed last always lists first. Called inside a write
   * transaction, so no other writer can slip in between.
   */
  private updateTime(): string {
    const { latest } = this.sql('SELECT MAX(updated_at) AS latest FROM sessions').get() as { latest: string | null };
    const after = latest ? Date.parse(latest) + 1 : 0;
    return new Date(Math.max(Date.now(), after)).toISOString();
  }

  private touch(pk: number): void {
    this.sql('UPDATE sessions SET updated_at = ? WHERE pk = ?').run(this.updateTime(), pk);
  }

  private insertSession(row: Omit<MetaRow, 'message_count'> & { plan: string }): number {
    const result = this.sql(
      `INSERT INTO sessions (id, parent_id, title, summary, status, archived, created_at, updated_at, message_count, model, cwd, plan)
       VALUES (@id, @parent_id, @title, @summary, @status, @archived, @created_at, @updated_at, 0, @model, @cwd, @plan)`,
    ).run(row);
    return Number(result.lastInsertRowid);
  }

  private messageCount(pk: number): number {
    return (this.sql('SELECT message_count FROM sessions WHERE pk = ?').get(pk) as { message_count: number }).message_count;
  }

  private appendTo(pk: number, message: ChatMessage, at: string, facts: AppendFacts = {}): AppendedMessage {
    const seq = this.messageCount(pk);
    const stamped = { at, ...facts };
    this.insertTranscript(pk, seq, message, stamped);
    this.sql('UPDATE sessions SET message_count = ?, updated_at = ? WHERE pk = ?').run(seq + 1, at, pk);
    return { seq, facts: stamped };
  }

  /** A new transcript message, queued for the search index unless it is a system prompt. */
  private insertTranscript(pk: number, seq: number, message: ChatMessage, facts: MessageFacts | null): number {
    const messageId = this.insertBody(message, facts);
    this.sql('INSERT INTO transcript (session_pk, seq, message_id) VALUES (?, ?, ?)').run(pk, seq, messageId);
    if (message.role !== 'system') this.sql('INSERT INTO search_backlog (message_id) VALUES (?)').run(messageId);
    return messageId;
  }

  /** in_transcript is always 1 since version 3 (context-only bodies became context starts). */
  private insertBody(message: ChatMessage, facts: MessageFacts | null): number {
    const c = toColumns(message);
    const result = this.sql(
      `INSERT INTO messages (role, content, tool_calls, tool_call_id, tool_text, stopped, images, facts, in_transcript) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(c.role, c.content, c.tool_calls, c.tool_call_id, c.tool_text, c.stopped, c.images, facts && JSON.stringify(facts), 1);
    return Number(result.lastInsertRowid);
  }

  /**
   * The start of a compacted context `[prompt, ...head, ...context[cut:]]` (the head: the
   * boundary, and what the compaction carried, `headLength` messages) from the cut's
   * transcript position (docs/DESIGN.md#compaction-on-a-derived-context): the context
   * before it was `[prompt] + head + the suffix from keptFrom`, prompts left out, so the
   * cut is the (cut - 1 - head)-th non-prompt message from keptFrom. Null when the context
   * is not of that shape (it did not lead with the prompt, or the cut fell in its head):
   * writeContext then finds the start by reading the transcript.
   */
  private compactionStart(pk: number, compacted: ChatMessage[], cut: number, headLength: number): ContextStart | null {
    const current = currentStart(this.db, pk);
    const inSuffix = cut - 1 - current.head.length;
    if (!current.withSystem || compacted[0]?.role !== 'system' || compacted.length < 1 + headLength || inSuffix < 0) return null;
    const keptFrom = nthNonSystemSeq(this.db, pk, current.keptFrom, inSuffix) ?? this.messageCount(pk);
    const promptSeq = lastSystemSeqIn(this.db, pk, current.keptFrom, keptFrom) ?? current.promptSeq;
    return { keptFrom, withSystem: true, head: compacted.slice(1, 1 + headLength).map(normalized), promptSeq };
  }

  /**
   * Makes `messages` the working context: records a start that derives it from the
   * transcript, unless the current one already does (appends need none). Returns the id of
   * the start written; null when none was needed.
   */
  private writeContext(pk: number, messages: ChatMessage[]): number | null {
    const transcript = readTranscript(this.db, pk);
    if (sameMessages(derive(currentStart(this.db, pk), transcript), messages)) return null;
    return insertStart(this.db, pk, transcript.length, startFor(messages, transcript));
  }

  /** What a fork at `point` inherits besides the shared rows (docs/DESIGN.md#branches). */
  private inheritRecords(pk: number, source: number, point: number, length: number): void {
    const start = startAtOrBefore(this.db, source, point);
    if (start) insertStart(this.db, pk, point, start);
    this.sql(
      `INSERT INTO compactions (session_pk, at, before_tokens, after_tokens, summary, transcript_index)
       SELECT ?, at, before_tokens, after_tokens, summary, transcript_index FROM compactions
        WHERE session_pk = ? AND (transcript_index <= ? OR (transcript_index IS NULL AND ? = ?)) ORDER BY id`,
    ).run(pk, source, point, point, length);
    this.sql(
      `INSERT INTO model_changes (session_pk, at, from_model, to_model, transcript_index)
       SELECT ?, at, from_model, to_model, transcript_index FROM model_changes WHERE session_pk = ? AND transcript_index <= ? ORDER BY id`,
    ).run(pk, source, point);
    // Usage totals cannot be split by position: only a fork of the whole session takes them.
    if (point < length) return;
    this.sql(
      `INSERT INTO usage (session_pk, kind, calls, prompt_tokens, completion_tokens, cost_usd)
       SELECT ?, kind, calls, prompt_tokens, completion_tokens, cost_usd FROM usage WHERE session_pk = ?`,
    ).run(pk, source);
  }

  private insertFork(id: string, source: number, point: number): number {
    return Number(
      this.sql(
        `INSERT INTO sessions (id, parent_id, title, summary, status, archived, created_at, updated_at, message_count, model, cwd, plan, fork_parent_pk, fork_at)
         SELECT ?, id, title, summary, 'saved', 0, @at, @at, ?, model, cwd, plan, ?, ? FROM sessions WHERE pk = ?`,
      ).run({ at: this.updateTime() }, id, point, point === 0 ? null : forkTarget(this.db, source, point), point, source).lastInsertRowid,
    );
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

  private insertCompaction(pk: number, c: Compaction): number {
    const { lastInsertRowid } = this.sql(
      `INSERT INTO compactions (session_pk, at, before_tokens, after_tokens, summary, transcript_index) VALUES (?, ?, ?, ?, ?, ?)`,
    ).run(pk, c.at, c.before_tokens, c.after_tokens, c.summary, c.transcript_index ?? null);
    return Number(lastInsertRowid);
  }

  private insertModelChange(pk: number, c: ModelChange): void {
    this.sql('INSERT INTO model_changes (session_pk, at, from_model, to_model, transcript_index) VALUES (?, ?, ?, ?, ?)').run(
      pk,
      c.at,
      c.from,
      c.to,
      c.transcript_index,
    );
  }

  private addUsage(pk: number, kind: CallKind, usage: CallUsage, calls: number): void {
    this.sql(
      `INSERT INTO usage (session_pk, kind, calls, prompt_tokens, completion_tokens, cost_usd) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (session_pk, kind) DO UPDATE SET
         calls = calls + excluded.calls,
         prompt_tokens = prompt_tokens + excluded.prompt_tokens,
         completion_tokens = completion_tokens + excluded.completion_tokens,
         cost_usd = cost_usd + excluded.cost_usd`,
    ).run(pk, kind, calls, usage.prompt_tokens, usage.completion_tokens, usage.cost_usd);
  }

  private insertImported(id: string, s: ExportedSession): void {
    const pk = this.insertSession({
      id,
      parent_id: s.parent_id,
      title: s.title,
      summary: s.summary,
      status: 'saved',
      archived: s.archived ? 1 : 0,
      created_at: s.created_at,
      updated_at: this.updateTime(),
      model: s.model,
      cwd: s.cwd,
      plan: JSON.stringify(s.plan),
    });
    s.transcript.forEach((message, seq) => this.insertTranscript(pk, seq, message, s.transcript_facts?.[seq] ?? null));
    this.sql('UPDATE sessions SET message_count = ? WHERE pk = ?').run(s.transcript.length, pk);
    this.writeContext(pk, s.messages);
    for (const c of s.compactions) this.insertCompaction(pk, c);
    for (const change of s.model_changes ?? []) this.insertModelChange(pk, change);
    for (const kind of CALL_KINDS) {
      const totals = s.usage.by_kind[kind];
      if (totals.calls || totals.prompt_tokens || totals.completion_tokens || totals.cost_usd) this.addUsage(pk, kind, totals, totals.calls);
    }
  }
}
