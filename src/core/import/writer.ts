/**
 * Turns imported conversations into Loom sessions through the store
 * (docs/DESIGN.md#importing-from-other-agents). Each source branch is a path of keyed
 * entries; a Loom session remembers the keys its transcript holds. A path already held adds
 * nothing; one that extends a session nobody has written to since gets only its new
 * entries appended; one that parts from a held path becomes a fork at the message where
 * they part (docs/DESIGN.md#branches); anything else is a new session. One conversation is
 * written in one transaction, and an existing session only while no one else holds it.
 */
import type { ChatMessage } from '../../shared/types';
import { boundaryMessage } from '../context/compactor';
import { estimateTotal } from '../model/tokens';
import { ImportRecords, type ImportBranchRecord } from '../store/import-records';
import type { SessionStore } from '../store/session-store';
import type { ImportedConversation, ImportedItem } from './imported';
import { withCutCopies } from './context-cut';
import { NO_RESULT_KEY, prepareBranch, type PreparedBranch } from './transcript';

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

  /** Writes one conversation; returns the ids of the Loom sessions it created or changed. */
  write(conversation: ImportedConversation, counts: WriteCounts): string[] {
    return this.store.batch(() => {
      const held = this.records.branches(this.source, conversation.sourceId);
      const claimed = new Set<ImportBranchRecord>();
      const touched: string[] = [];
      conversation.branches.forEach((branch, index) => {
        const prepared = prepareBranch(branch);
        const id = this.writeBranch(conversation, prepared, { held, claimed }, counts);
        if (id === undefined) return;
        if (index === 0) {
          counts.droppedResults += prepared.droppedResults;
          counts.droppedCalls += prepared.droppedCalls;
        }
        touched.push(id);
      });
      return touched;
    });
  }

  /**
   * `claimed`: the sessions another branch of this conversation already holds or extends.
   * Only an unclaimed one may be appended to: a path that is still a leaf in the source
   * stays as it is, and the branch that goes on from it becomes a fork.
   */
  private writeBranch(
    conversation: ImportedConversation,
    { items, cuts }: PreparedBranch,
    { held, claimed }: { held: ImportBranchRecord[]; claimed: Set<ImportBranchRecord> },
    counts: WriteCounts,
  ): string | undefined {
    const keys = items.map((item) => item.key.replace(/\n/g, ' '));
    const holder = held.find((record) => isPrefix(keys, record.keys));
    if (items.length === 0 || holder) {
      if (holder && holder.keys.length === keys.length) claimed.add(holder);
      return undefined;
    }
    const best = longestShared(keys, held);
    let id: string;
    let from: number;
    if (
      best &&
      !claimed.has(best.record) &&
      best.shared === best.record.keys.length &&
      this.store.getMeta(best.record.sessionId).message_count === best.record.messageCount
    ) {
      ({ sessionId: id } = best.record);
      from = best.shared;
      this.store.whileFree(id, () => this.append(id, items, from, counts, cuts));
      counts.grown++;
      held.splice(held.indexOf(best.record), 1);
    } else {
      const at = best ? messagesIn(items.slice(0, best.shared)) : 0;
      from = at > 0 && best ? best.shared : 0;
      id = from > 0 && best ? this.store.fork(best.record.sessionId, at).id : this.create(conversation);
      this.append(id, items, from, counts, cuts);
      if (from > 0) counts.forks++;
      else counts.created++;
    }
    this.store.setDates(id, conversation.createdAt, conversation.updatedAt);
    const record = { sessionId: id, keys, messageCount: this.store.getMeta(id).message_count };
    this.records.saveBranch(this.source, conversation.sourceId, record);
    held.push(record);
    claimed.add(record);
    return id;
  }

  private create(conversation: ImportedConversation): string {
    const { id } = this.store.create({ title: conversation.title, cwd: conversation.cwd, model: conversation.model });
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
    const flush = () => {
      if (run.length) this.store.appendMessages(id, run);
      run = [];
    };
    items.forEach((item, index) => {
      if (item.kind === 'message') {
        path.push({ key: item.key, message: item.message });
        if (index < from) return;
        run.push(item.message);
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
  while (start < path.length && path[start].message.role === 'tool') start++;
  return path.slice(start).map((entry) => entry.message);
}

function isClosingResult(key: string): boolean {
  return key.includes(NO_RESULT_KEY);
}

function messagesIn(items: ImportedItem[]): number {
  return items.filter((item) => item.kind === 'message').length;
}

function isPrefix(keys: string[], of: string[]): boolean {
  return keys.length <= of.length && keys.every((key, i) => of[i] === key);
}

function longestShared(keys: string[], held: ImportBranchRecord[]): { record: ImportBranchRecord; shared: number } | undefined {
  let best: { record: ImportBranchRecord; shared: number } | undefined;
  for (const record of held) {
    let shared = 0;
    while (shared < keys.length && shared < record.keys.length && keys[shared] === record.keys[shared]) shared++;
    if (shared > 0 && (!best || shared > best.shared)) best = { record, shared };
  }
  return best;
}
