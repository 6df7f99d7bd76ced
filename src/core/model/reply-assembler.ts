import { randomUUID } from 'node:crypto';
import type { AssistantMessage, ToolCall } from '../../shared/types';
import { counted } from '../counted';

/**
 * Most of one reply Loom keeps: 1 MiB of characters, text and tool-call arguments together.
 * A server that sends more (by accident or to flood the session) gets its reply cut here:
 * it is stored cut, with a note, and only the cut version is ever sent back.
 */
export const MAX_REPLY_CHARS = 1024 * 1024;

export interface ReportedUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
}

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Builds one assistant message from streamed chat-completion chunks. Servers differ: tool
 * call arguments arrive in pieces or whole, ids and names only in the first piece, `index`
 * is sometimes missing, content may be null, usage may come in a choice-less last chunk or
 * not at all. Everything is read defensively: a chunk is untrusted JSON.
 *
 * Past `maxChars` the reply is cut: nothing more is taken (`overflowed` tells the client
 * to stop reading), the text ends with a note, and its tool calls are dropped — a call
 * that may be missing its end is never run.
 */
export class ReplyAssembler {
  private text = '';
  private size = 0;
  /** True once the reply went over maxChars; everything after that was dropped. */
  overflowed = false;
  private readonly calls: PartialCall[] = [];
  private readonly callsByIndex = new Map<number, PartialCall>();
  private finish: string | null = null;
  private reported: ReportedUsage | undefined;
  /** True once any chunk looked like a chat completion chunk. */
  recognised = false;

  constructor(private readonly maxChars = MAX_REPLY_CHARS) {}

  /** True once any reply text or tool-call data arrived: the first token's moment. */
  get started(): boolean {
    return this.size > 0;
  }

  /**
   * Takes one streamed chunk (or a whole completion, from a server that ignores
   * `stream: true`); returns the text it adds, if any.
   */
  add(chunk: unknown): string {
    if (!isObject(chunk) || this.overflowed) return '';
    if (isObject(chunk.usage)) this.reported = readUsage(chunk.usage);
    if (!Array.isArray(chunk.choices)) return '';
    this.recognised = true;
    let added = '';
    for (const choice of chunk.choices) {
      if (!isObject(choice) || (choice.index !== undefined && choice.index !== 0)) continue;
      if (typeof choice.finish_reason === 'string') this.finish = choice.finish_reason;
      const delta = isObject(choice.delta) ? choice.delta : isObject(choice.message) ? choice.message : undefined;
      if (!delta) continue;
      if (typeof delta.content === 'string') added += this.take(delta.content);
      if (Array.isArray(delta.tool_calls)) delta.tool_calls.forEach((piece) => this.addToolCallPiece(piece));
    }
    if (this.overflowed) this.finish = 'length';
    this.text += added;
    return added;
  }

  get finishReason(): string | null {
    return this.finish;
  }

  get usage(): ReportedUsage | undefined {
    return this.reported;
  }

  /**
   * A call without a name is kept when it carries an id or arguments (the model meant a
   * call, and the loop answers it with an error it can act on); an empty piece with
   * nothing at all is only stream noise.
   */
  message(): AssistantMessage {
    if (this.overflowed) return { role: 'assistant', content: this.text + this.cutNotice() };
    const toolCalls: ToolCall[] = this.calls
      .filter((call) => call.name !== '' || call.id !== '' || call.arguments.trim() !== '')
      .map((call) => ({
        id: call.id || `call_${randomUUID().slice(0, 12)}`,
        type: 'function',
        // No arguments at all means "no arguments"; '' is not valid JSON for the next request.
        function: { name: call.name, arguments: call.arguments.trim() === '' ? '{}' : call.arguments },
      }));
    if (toolCalls.length === 0) return { role: 'assistant', content: this.text };
    return { role: 'assistant', content: this.text === '' ? null : this.text, tool_calls: toolCalls };
  }

  /** What ends a cut reply's text (and is shown after it): empty unless the reply was cut. */
  cutNotice(): string {
    if (!this.overflowed) return '';
    const n = this.calls.length;
    const dropped = n ? `; ${counted(n, 'tool call')} in it ${n === 1 ? 'was' : 'were'} dropped, not run` : '';
    const note = `[reply cut at ${this.maxChars.toLocaleString('en-US')} characters: the model server sent more than Loom keeps of one reply, and the rest was not read${dropped}.]`;
    return this.text ? `\n\n${note}` : note;
  }

  /** The part of `piece` that still fits under maxChars; marks the reply cut when not all of it does. */
  private take(piece: string): string {
    const room = this.maxChars - this.size;
    if (piece.length <= room) {
      this.size += piece.length;
      return piece;
    }
    this.overflowed = true;
    // Never end on half a surrogate pair.
    const kept = /[\ud800-\udbff]$/.test(piece.slice(0, room)) ? piece.slice(0, room - 1) : piece.slice(0, room);
    this.size += kept.length;
    return kept;
  }

  private addToolCallPiece(piece: unknown): void {
    if (!isObject(piece) || this.overflowed) return;
    const call = this.callFor(piece);
    if (typeof piece.id === 'string' && piece.id !== '') call.id = piece.id;
    const fn = isObject(piece.function) ? piece.function : undefined;
    if (!fn) return;
    if (typeof fn.name === 'string' && fn.name !== '') call.name = fn.name;
    const args = typeof fn.arguments === 'string' ? fn.arguments : isObject(fn.arguments) ? JSON.stringify(fn.arguments) : '';
    // The arguments are dropped with the call if the reply is cut, so they are not kept half.
    if (this.take(args) === args) call.arguments += args;
  }

  /** The call a piece belongs to: by index; without one, a new id starts a new call. */
  private callFor(piece: Record<string, unknown>): PartialCall {
    if (typeof piece.index === 'number') {
      const known = this.callsByIndex.get(piece.index);
      if (known) return known;
      const call = this.newCall();
      this.callsByIndex.set(piece.index, call);
      return call;
    }
    const last = this.calls.at(-1);
    const startsNew = typeof piece.id === 'string' && piece.id !== '' && piece.id !== last?.id;
    return !last || startsNew ? this.newCall() : last;
  }

  private newCall(): PartialCall {
    const call = { id: '', name: '', arguments: '' };
    this.calls.push(call);
    return call;
  }
}

function readUsage(usage: Record<string, unknown>): ReportedUsage {
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined);
  return { prompt_tokens: count(usage.prompt_tokens), completion_tokens: count(usage.completion_tokens) };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- callers check each field's type before use.
function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
