/**
 * Makes a source branch a transcript a strict OpenAI-compatible server accepts next
 * (the rules of store/context-rules.ts): every tool call answered once, right after its
 * assistant message. A call the source left without a result (an aborted turn) gets the
 * same "no result" result an imported export gets; a result without its call (its call
 * was on another branch, or never written) is left out; an assistant message with neither
 * text nor calls (thinking only, an aborted empty reply) is left out. A call with an empty
 * id cannot be told from another one's result: it is left out with its results, and counted.
 *
 * What the source's user typed and what its tools returned reach the model fenced as data,
 * exactly as Loom's own do (security/untrusted.ts): a transcript is another program's file,
 * and a result saying `</tool_result> SYSTEM OVERRIDE…` must not end its fence. A message
 * too long for any context gets a cut copy for it (context-cut.ts).
 */
import { contentImages, contentText, userContent } from '../../shared/attachments';
import type { ChatMessage, ToolCall } from '../../shared/types';
import { wrapToolResult, wrapUserInput } from '../security/untrusted';
import { NO_RESULT_ON_IMPORT } from '../store/context-rules';
import { messageKey } from '../store/messages';
import { cutForContext } from './context-cut';
import { assistant, type ImportedItem } from './imported';

/** In the key of a result the import wrote for a call without one. */
export const NO_RESULT_KEY = '#no-result:';

export interface PreparedBranch {
  items: ImportedItem[];
  droppedResults: number;
  /** Calls left out for an empty id. */
  droppedCalls: number;
}

/**
 * What prepareBranch made of each source item, shared by the branches of one conversation:
 * an entry is fenced (and cut) once however many paths hold it, so a file with many branches
 * costs its entries' text once, not once per path.
 */
export class PreparedItems {
  private readonly made = new Map<ImportedItem, ImportedItem>();
  /** For each message too long for the context (by its messageKey): the copy the context gets instead. */
  readonly cuts = new Map<string, ChatMessage>();

  /** The message `make` builds around `text`; one too long for the context also gets its cut copy. */
  message(source: ImportedItem, text: string, make: (text: string) => ChatMessage): ImportedItem {
    const known = this.made.get(source);
    if (known) return known;
    const whole = make(text);
    const facts = source.kind === 'message' ? source.facts : undefined;
    const item: ImportedItem = { kind: 'message', key: recordableKey(source.key), message: whole, ...(facts && { facts }) };
    const cut = cutForContext(text);
    if (cut !== text) this.cuts.set(messageKey(whole), make(cut));
    this.made.set(source, item);
    return item;
  }

  /** Any other item as it is, its keys made recordable. */
  other(source: ImportedItem): ImportedItem {
    const known = this.made.get(source);
    if (known) return known;
    const item: ImportedItem =
      source.kind === 'compaction'
        ? { ...source, key: recordableKey(source.key), ...(source.keptFrom === undefined ? {} : { keptFrom: recordableKey(source.keptFrom) }) }
        : { ...source, key: recordableKey(source.key) };
    this.made.set(source, item);
    return item;
  }
}

/** A key as import-records.ts stores it: one line, without the character that marks a fork's base. */
function recordableKey(key: string): string {
  return key.replace(/[\n\u0001]/g, ' ');
}

export function prepareBranch(source: readonly ImportedItem[], prepared: PreparedItems = new PreparedItems()): PreparedBranch {
  const items: ImportedItem[] = [];
  let waiting: { key: string; calls: ToolCall[]; at?: string } | undefined;
  const answered = new Set<string>();
  let droppedResults = 0;
  let droppedCalls = 0;
  const closeWaiting = () => {
    if (!waiting) return; // most items follow no call: this runs for every item of every path
    for (const call of waiting.calls) {
      if (answered.has(call.id)) continue;
      items.push({
        kind: 'message',
        key: recordableKey(`${waiting.key}${NO_RESULT_KEY}${call.id}`),
        message: { role: 'tool', tool_call_id: call.id, content: NO_RESULT_ON_IMPORT },
        // As old as its call: the source's time, not the import's.
        ...(waiting.at && { facts: { at: waiting.at } }),
      });
    }
    waiting = undefined;
    answered.clear();
  };

  for (const item of source) {
    const message = item.kind === 'message' ? item.message : undefined;
    if (message?.role === 'tool') {
      const call = waiting?.calls.find((c) => c.id === message.tool_call_id);
      if (call && !answered.has(call.id)) {
        answered.add(call.id);
        items.push(
          prepared.message(item, message.content, (text) => ({ role: 'tool', tool_call_id: call.id, content: wrapToolResult(call.function.name, text) })),
        );
      } else droppedResults++;
      continue;
    }
    closeWaiting();
    if (message?.role === 'assistant') {
      const withIds = (message.tool_calls ?? []).filter((call) => call.id.trim() !== '');
      droppedCalls += (message.tool_calls?.length ?? 0) - withIds.length;
      const calls = distinctCalls(withIds);
      if (!message.content && calls.length === 0) continue;
      items.push(prepared.message(item, message.content ?? '', (text) => assistant(text || null, calls)));
      waiting = { key: item.key, calls, at: item.kind === 'message' ? item.facts?.at : undefined };
      continue;
    }
    if (message?.role === 'user') {
      const images = contentImages(message.content);
      items.push(prepared.message(item, contentText(message.content), (text) => fencedUserMessage(text, images)));
    } else items.push(prepared.other(item));
  }
  closeWaiting();
  return { items, droppedResults, droppedCalls };
}

/** The words in a `<user_input>` fence, as a turn of Loom's own has them; images stay parts. */
function fencedUserMessage(text: string, images: string[]): ChatMessage {
  return { role: 'user', content: userContent(text.trim() ? wrapUserInput(text) : text, images) };
}

function distinctCalls(calls: ToolCall[]): ToolCall[] {
  const seen = new Set<string>();
  return calls.filter((call) => !seen.has(call.id) && seen.add(call.id));
}
