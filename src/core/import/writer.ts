/**
 * Turns imported conversations into Loom sessions through the store
 * (docs/DESIGN.md#importing-from-other-agents). Each source branch is a path of keyed
 * entries; a Loom session remembers the keys its transcript holds. A path already held adds
 * nothing; one that extends a session nobody has written to since gets only its new
 * entries appended; one that parts from a held path becomes a fork at the message where
 * they part (docs/DESIGN.md#branches); anything else is a new session. Each branch is
 * written in one transaction, and an existing session only while no one else holds it.
 */
import type { CallUsage, ChatMessage } from '../../shared/types';
import { boundaryMessage } from '../context/compactor';
import { estimateTotal } from '../model/tokens';
import { ImportRecords, type ImportBranchRecord } from '../store/repositories/import-records';
import type { SessionStore } from '../store/session-store';
import type { ImportedConversation, ImportedItem, SourceFacts } from './imported';
import { withCutCopies } from './context-cut';
import { HeldPaths } from './held-paths';
import { NO_RESULT_KEY, PreparedItems, prepareBranch } from './transcript';

export interface WriteCounts {
  created: number;
  grown: number;
  forks: number;
  messages: number;
  closedCalls: number;
  droppedResults: number;
  /** Tool calls with an empty id, left out with their results. */
  droppedCalls: number;
}

export function zeroCounts(): WriteCounts {
  return { created: 0, grown: 0, forks: 0, messages: 0, closedCalls: 0, droppedResults: 0, droppedCalls: 0 };
}

type Keyed = { key: string; message: ChatMessage };

export class ImportWriter {
  private readonly records: ImportRecords;

  constructor(
    private readonly store: SessionStore,
    private readonly source: string,
  ) {
    this.records = new ImportRecords(store.db);
  }

  /**
   * Writes one conversation a branch at a time: each step writes one branch, in the caller's
   * transaction, and yields the id of the session it created or changed (undefined when the
   * branch was held already). The caller commits between steps as it sees fit
   * (import/run.ts: every few milliseconds, so other work runs meanwhile).
   */
  *write(conversation: ImportedConversation, counts: WriteCounts): Generator<string | undefined, void, void> {
    const heldNow = () => new HeldPaths(this.records.branches(this.source, conversation.sourceId));
    let held = heldNow();
    let seen = this.otherWriters();
    const claimed = new Set<string>();
    const prepared = new PreparedItems();
    let active = true;
    for (const branch of conversation.branches) {
      // Another process committed since (between the caller's transactions): it may have imported this file too.
      if (this.otherWriters() !== seen) {
        held = heldNow();
        seen = this.otherWriters();
      }
      const { items, droppedResults, droppedCalls } = prepareBranch(branch, prepared);
      const id = this.writeBranch(conversation, items, { held, claimed, cuts: prepared.cuts }, counts);
      if (id !== undefined && active) {
        counts.droppedResults += droppedResults;
        counts.droppedCalls += droppedCalls;
        if (conversation.usage) this.catchUpUsage(id, conversation.usage);
      }
      active = false;
      yield id;
    }
  }

  /**
   * Brings the session's usage up to what the source counted for the conversation: what a
   * session that grew used since the last import is added as one call, and a session whose
   * source counted nothing new keeps what it has.
   */
  private catchUpUsage(id: string, usage: CallUsage): void {
    const held = this.store.getUsage(id);
    const more = {
      prompt_tokens: Math.max(0, usage.prompt_tokens - held.prompt_tokens),
      completion_tokens: Math.max(0, usage.completion_tokens - held.completion_tokens),
      cost_usd: Math.max(0, usage.cost_usd - held.cost_usd),
    };
    if (more.prompt_tokens || more.completion_tokens || more.cost_usd) this.store.recordUsage(id, 'chat', more);
  }

  /** Changes whenever another connection commits to the store (SQLite's data_version). */
  private otherWriters(): number {
    return this.store.db.pragma('data_version', { simple: true }) as number;
  }

  /**
   * `claimed`: the sessions another branch of this conversation already holds or extends.
   * Only an unclaimed one may be appended to: a path that is still a leaf in the source
   * stays as it is, and the branch that goes on from it becomes a fork.
   */
  private writeBranch(
    conversation: ImportedConversation,
    items: ImportedItem[],
    { held, claimed, cuts }: { held: HeldPaths; claimed: Set<string>; cuts: ReadonlyMap<string, ChatMessage> },
    counts: WriteCounts,
  ): string | undefined {
    if (items.length === 0) return undefined;
    const keys = items.map((item) => item.key);
    const meeting = held.meet(keys);
    if (meeting.held) {
      if (meeting.record) claimed.add(meeting.record.sessionId);
      return undefined;
    }
    const { shared, record: best } = meeting;
    if (best && !claimed.has(best.sessionId) && held.length(best) === shared && this.store.getMeta(best.sessionId).message_count === best.messageCount) {
      const id = best.sessionId;
      this.store.whileFree(id, () => this.append(id, items, shared, counts, cuts));
      counts.grown++;
      const from = best.keys.length;
      for (const key of keys.slice(shared)) best.keys.push(key);
      return this.recorded(conversation, best, { held, claimed, from });
    }
    const at = best ? messagesIn(items.slice(0, shared)) : 0;
    const forked = at > 0 && best ? { sessionId: best.sessionId, count: shared } : undefined;
    const id = forked ? this.store.fork(forked.sessionId, at).id : this.create(conversation);
    this.append(id, items, forked ? shared : 0, counts, cuts);
    if (forked) counts.forks++;
    else counts.created++;
    const record: ImportBranchRecord = { sessionId: id, ...(forked && { base: forked }), keys: keys.slice(forked ? shared : 0), messageCount: 0 };
    return this.recorded(conversation, record, { held, claimed, from: 0 });
  }

  /** Saves what the session now holds (its dates, its record) and marks it taken by this import. */
  private recorded(
    conversation: ImportedConversation,
    record: ImportBranchRecord,
    { held, claimed, from }: { held: HeldPaths; claimed: Set<string>; from: number },
  ): string {
    this.store.setDates(record.sessionId, conversation.createdAt, conversation.updatedAt);
    record.messageCount = this.store.getMeta(record.sessionId).message_count;
    this.records.saveBranch(this.source, conversation.sourceId, record);
    held.add(record, from);
    claimed.add(record.sessionId);
    return record.sessionId;
  }

  private create(conversation: ImportedConversation): string {
    // A sub-agent's parent is imported first (import/run.ts orders the files); if it is not, the sub-agent stands alone.
    const parentId = conversation.parentSourceId === undefined ? null : (this.records.branches(this.source, conversation.parentSourceId)[0]?.sessionId ?? null);
    const { id } = this.store.create({ title: conversation.title, cwd: conversation.cwd, model: conversation.model, parentId });
    this.store.setStatus(id, 'saved');
    return id;
  }

  /**
   * Appends items[from..], runs of messages at once; a compaction records the context it left:
   * its summary, then the messages it kept. The context has the cut copy of every message too
   * long for it (a fork's shared messages included), the transcript the whole one.
   */
  private append(id: string, items: ImportedItem[], from: number, counts: WriteCounts, cuts: ReadonlyMap<string, ChatMessage>): void {
    const path: Keyed[] = [];
    let run: ChatMessage[] = [];
    let facts: (SourceFacts | undefined)[] = [];
    const flush = () => {
      if (run.length) this.store.appendMessages(id, run, facts);
      run = [];
      facts = [];
    };
    items.forEach((item, index) => {
      if (item.kind === 'message') {
        path.push({ key: item.key, message: item.message });
        if (index < from) return;
        run.push(item.message);
        facts.push(item.facts);
        counts.messages++;
        if (isClosingResult(item.key)) counts.closedCalls++;
      } else if (index >= from) {
        flush();
        const context = [boundaryMessage(item.summary), ...withCutCopies(keptMessages(path, item.keptFrom), cuts)];
        const after = estimateTotal(context);
        this.store.recordCompaction(id, {
          messages: context,
          compaction: { at: item.at, before_tokens: Math.max(item.beforeTokens, after), after_tokens: after, summary: item.summary },
        });
      }
    });
    flush();
    if (cuts.size > 0) this.cutContext(id, cuts);
  }

  private cutContext(id: string, cuts: ReadonlyMap<string, ChatMessage>): void {
    const context = this.store.getContext(id);
    const cut = withCutCopies(context, cuts);
    if (cut.some((message, i) => message !== context[i])) this.store.replaceContext(id, cut);
  }
}

/** The kept messages from `keptFrom` on, less tool results at the start whose calls were cut off. */
function keptMessages(path: Keyed[], keptFrom: string | undefined): ChatMessage[] {
  let start = keptFrom === undefined ? -1 : path.findIndex((entry) => entry.key === keptFrom);
  if (start < 0) return [];
  while (path[start]?.message.role === 'tool') start++;
  return path.slice(start).map((entry) => entry.message);
}

function isClosingResult(key: string): boolean {
  return key.includes(NO_RESULT_KEY);
}

function messagesIn(items: ImportedItem[]): number {
  return items.filter((item) => item.kind === 'message').length;
}
