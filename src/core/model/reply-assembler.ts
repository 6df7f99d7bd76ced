import { randomUUID } from 'node:crypto';
import type { AssistantMessage, ToolCall } from '../../shared/types';

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
 */
export class ReplyAssembler {
  private text = '';
  private readonly calls: PartialCall[] = [];
  private readonly callsByIndex = new Map<number, PartialCall>();
  private finish: string | null = null;
  private reported: ReportedUsage | undefined;
  /** True once any chunk looked like a chat completion chunk. */
  recognised = false;

  /**
   * Takes one streamed chunk (or a whole completion, from a server that ignores
   * `stream: true`); returns the text it adds, if any.
   */
  add(chunk: unknown): string {
    if (!isObject(chunk)) return '';
    if (isObject(chunk.usage)) this.reported = readUsage(chunk.usage);
    if (!Array.isArray(chunk.choices)) return '';
    this.recognised = true;
    let added = '';
    for (const choice of chunk.choices) {
      if (!isObject(choice) || (choice.index !== undefined && choice.index !== 0)) continue;
      if (typeof choice.finish_reason === 'string') this.finish = choice.finish_reason;
      const delta = isObject(choice.delta) ? choice.delta : isObject(choice.message) ? choice.message : undefined;
      if (!delta) continue;
      if (typeof delta.content === 'string') added += delta.content;
      if (Array.isArray(delta.tool_calls)) delta.tool_calls.forEach((piece) => this.addToolCallPiece(piece));
    }
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

  private addToolCallPiece(piece: unknown): void {
    if (!isObject(piece)) return;
    const call = this.callFor(piece);
    if (typeof piece.id === 'string' && piece.id !== '') call.id = piece.id;
    const fn = isObject(piece.function) ? piece.function : undefined;
    if (!fn) return;
    if (typeof fn.name === 'string' && fn.name !== '') call.name = fn.name;
    if (typeof fn.arguments === 'string') call.arguments += fn.arguments;
    else if (isObject(fn.arguments)) call.arguments += JSON.stringify(fn.arguments);
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

function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
