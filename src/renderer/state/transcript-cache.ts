/**
 * The messages of one session's transcript this view holds, keyed by transcript position
 * (TranscriptSeq), whether a fetched page or a live message event brought them. A position
 * always holds the same message, so writing one twice, or late (an event that crossed a
 * page fetch, a page fetched before a message was appended), changes nothing: no order of
 * answers and events can lose a message.
 */
import type { TranscriptPage, TranscriptSeq } from '../../shared/contract';
import type { ChatMessage, MessageFacts } from '../../shared/types';

/** Messages fetched at once, as the virtual list scrolls: a 5,000-message session opens at once. */
export const PAGE_SIZE = 200;

/** How far back a tool result looks for the call it answers. */
const CALL_LOOKBACK = 256;

interface Entry {
  message: ChatMessage;
  /** What the store recorded with it (time, model, tokens…), null when nothing. */
  facts: MessageFacts | null;
}

export class TranscriptCache {
  private entries = new Map<TranscriptSeq, Entry>();
  /** How many positions of each page are held: a page is fetched until it is full. */
  private held = new Map<number, number>();
  /** Each tool result held, by the call it answers: a sub-agent card reads how its call ended. */
  private results = new Map<string, string>();

  /** Holds the message at `seq`; true when that position was new here. */
  put(seq: TranscriptSeq, message: ChatMessage, facts: MessageFacts | null): boolean {
    const isNew = !this.entries.has(seq);
    if (isNew) this.held.set(pageOf(seq), (this.held.get(pageOf(seq)) ?? 0) + 1);
    this.entries.set(seq, { message, facts });
    if (message.role === 'tool') this.results.set(message.tool_call_id, message.content);
    return isNew;
  }

  putPage(page: TranscriptPage): void {
    page.messages.forEach((message, i) => this.put(page.offset + i, message, page.facts[i] ?? null));
  }

  message(seq: TranscriptSeq): ChatMessage | undefined {
    return this.entries.get(seq)?.message;
  }

  facts(seq: TranscriptSeq): MessageFacts | null {
    return this.entries.get(seq)?.facts ?? null;
  }

  /** The result of call `callId`, when this view holds it. */
  resultOf(callId: string): string | undefined {
    return this.results.get(callId);
  }

  /** The name of the tool whose call `callId` is, looking back from a tool result at `seq`. */
  toolNameFor(callId: string, seq: TranscriptSeq): string | undefined {
    for (let i = seq - 1; i >= Math.max(0, seq - CALL_LOOKBACK); i--) {
      const message = this.message(i);
      const call = message?.role === 'assistant' ? message.tool_calls?.find((c) => c.id === callId) : undefined;
      if (call) return call.function.name;
    }
    return undefined;
  }

  /** The pages covering positions [start, end] of a `total`-message transcript that lack a message. */
  pagesLacking(start: number, end: number, total: number): number[] {
    const pages: number[] = [];
    for (let page = pageOf(Math.max(0, start)); page <= pageOf(Math.min(end, total - 1)); page++) {
      const size = Math.min(PAGE_SIZE, total - page * PAGE_SIZE);
      if ((this.held.get(page) ?? 0) < size) pages.push(page);
    }
    return pages;
  }
}

export function pageOf(seq: TranscriptSeq): number {
  return Math.floor(seq / PAGE_SIZE);
}
