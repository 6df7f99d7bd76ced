import type { ChatMessage } from '../../shared/types';
import { estimateMessageTokens } from '../model/tokens';

export { estimateTotal } from '../model/tokens';

/** Fraction of the hard budget above which the context is compacted (docs/DESIGN.md#compaction). */
const DEFAULT_TRIM_THRESHOLD = 0.8;

/**
 * A server figure below this fraction of our own estimate for the same messages is not
 * believed: some servers (Ollama regressions, ollama/ollama#5370 and #16414) report only
 * the uncached part of the prompt, or the part that fit their own window. Trusting such a
 * figure would hide a growing context until the server silently truncates it.
 */
const MIN_PLAUSIBLE_SERVER_RATIO = 0.5;

/**
 * The working context's size in tokens, kept up to date as messages are appended so that
 * a long session is never re-counted before each request: add() and estimate() are O(1).
 */
export class ContextBudget {
  /** prefix[i] = local estimate of the first i messages. */
  private prefix: number[] = [0];
  /** The local estimate of every message counted (prefix's last entry). */
  private total = 0;
  /** The last request the server measured: its prompt_tokens and our estimate of the messages it held. */
  private server: { promptTokens: number; localTokens: number } | null = null;

  constructor(
    private max: number,
    readonly threshold: number = DEFAULT_TRIM_THRESHOLD,
  ) {
    if (!(max > 0) || !(threshold > 0 && threshold <= 1)) {
      throw new RangeError(`Invalid context budget: max ${max}, threshold ${threshold}.`);
    }
  }

  get maxTokens(): number {
    return this.max;
  }

  /** A new hard budget for the same context: the settings changed, or the model's window became known. */
  resize(maxTokens: number): void {
    if (!(maxTokens > 0)) throw new RangeError(`Invalid context budget: max ${maxTokens}.`);
    this.max = maxTokens;
  }

  /** Starts over from a whole context: after a compaction, a resume or a fork. */
  reset(messages: readonly ChatMessage[]): void {
    this.prefix = [0];
    this.total = 0;
    this.server = null;
    for (const message of messages) this.add(message);
  }

  add(message: ChatMessage): void {
    this.total += estimateMessageTokens(message);
    this.prefix.push(this.total);
  }

  /** Number of messages the budget has counted. */
  get messageCount(): number {
    return this.prefix.length - 1;
  }

  /**
   * The server's prompt_tokens for a request made of the first `messagesSent` messages.
   * Only a figure the server really reported belongs here, never a client-side estimate.
   */
  recordServerPromptTokens(promptTokens: number, messagesSent: number): void {
    if (!Number.isFinite(promptTokens) || promptTokens <= 0) return;
    // Undefined unless messagesSent is a whole number of the messages counted here.
    const localTokens = this.prefix[messagesSent];
    if (localTokens === undefined) return;
    if (promptTokens < localTokens * MIN_PLAUSIBLE_SERVER_RATIO) return;
    this.server = { promptTokens, localTokens };
  }

  /** The server's last figure plus our estimate of what was added since, else our estimate. */
  estimate(): number {
    if (!this.server) return this.total;
    return this.server.promptTokens + (this.total - this.server.localTokens);
  }

  /** Strictly above the threshold: exactly at 80 % no compaction happens. */
  overThreshold(): boolean {
    return this.estimate() > this.threshold * this.max;
  }

  fits(): boolean {
    return this.estimate() <= this.max;
  }
}
