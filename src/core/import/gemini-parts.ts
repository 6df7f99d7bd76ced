/**
 * Gemini's message parts as Gemini CLI saves them (docs/DESIGN.md#importing-from-other-agents),
 * shared by its session recordings and its `/chat save` checkpoints: a content is a string,
 * a part or a list of them; a part holds text (a `thought` is the model's reasoning, which
 * Loom does not keep), a function call, a function response or a file. Function responses
 * may lack the call's id: they answer the first unanswered call of their name, in order.
 */
import type { ToolCall } from '../../shared/types';
import { isRecord, noteNotUnderstood, str, toolCall, type ParsedFile } from './imported';

type Part = Record<string, unknown>;

/** Part fields with nothing for a chat transcript (code the model ran is in its text or result). */
const SILENT_PART_FIELDS = ['thoughtSignature', 'executableCode', 'codeExecutionResult', 'videoMetadata'];

/** Injected by Gemini CLI itself, not typed (gemini-cli's isIgnoredUserContent): its setup context, hook output, slash commands, `?` help. */
const INJECTED_USER_TEXT = /^\s*(<session_context>|<hook_context>|This is the Gemini CLI\. We are setting up the context|[/?])/;

/** The parts of a content, whatever its form; anything else is no part. */
export function partsOf(content: unknown): Part[] {
  const list = Array.isArray(content) ? (content as unknown[]) : [content];
  return list.flatMap((part) => (typeof part === 'string' ? [{ text: part }] : isRecord(part) ? [part] : []));
}

/** The text of the parts (not thoughts), files named; parts of no kind this reader knows counted in `parsed`. */
export function partsText(parts: Part[], parsed: ParsedFile): string {
  const texts: string[] = [];
  for (const part of parts) {
    if (typeof part.text === 'string') {
      if (part.thought !== true) texts.push(part.text);
    } else if (isRecord(part.inlineData)) texts.push(/^image\//.test(str(part.inlineData.mimeType) ?? '') ? '[image]' : '[file]');
    else if (isRecord(part.fileData)) texts.push(`[file: ${str(part.fileData.fileUri) ?? 'attachment'}]`);
    else if (!isRecord(part.functionCall) && !isRecord(part.functionResponse) && !SILENT_PART_FIELDS.some((field) => field in part))
      noteNotUnderstood(parsed, `gemini-cli part with fields ${JSON.stringify(Object.keys(part).slice(0, 5).join(','))}`);
  }
  return texts.join('');
}

/** Whether a user's text is Gemini CLI's own rather than the user's. */
export function isInjectedUserText(text: string): boolean {
  return !text.trim() || INJECTED_USER_TEXT.test(text);
}

/** The function calls among the parts; one without an id gets `${key}#<n>`, stable for the same content. */
export function functionCalls(parts: Part[], key: string): ToolCall[] {
  return parts.flatMap((part, n) => {
    if (!isRecord(part.functionCall)) return [];
    const call = part.functionCall;
    return [toolCall(str(call.id) || `${key}#${n}`, str(call.name), call.args ?? {})];
  });
}

/** A function response's result as the model read it: its `output`, its `error`, or the whole response. */
function responseText(response: unknown): string {
  if (isRecord(response)) {
    if (typeof response.output === 'string') return response.output;
    if (typeof response.error === 'string') return `Error: ${response.error}`;
  }
  return typeof response === 'string' ? response : JSON.stringify(response ?? '');
}

/**
 * The calls of the last model turn still waiting for a result. A response with an id answers
 * that call; one without answers the first unanswered call of its name.
 */
export class WaitingCalls {
  private calls: ToolCall[] = [];
  private readonly answered = new Set<string>();

  /** A model turn's calls, those already answered (inline results) among them. */
  open(calls: ToolCall[], answered: Iterable<string> = []): void {
    this.calls = calls;
    this.answered.clear();
    for (const id of answered) this.answered.add(id);
  }

  /** The id of the call a response answers; undefined when it answers none still waiting. */
  answer(id: string | undefined, name: string | undefined): string | undefined {
    const waiting = (call: ToolCall) => !this.answered.has(call.id);
    const call = id ? this.calls.find((c) => c.id === id && waiting(c)) : this.calls.find((c) => c.function.name === name && waiting(c));
    if (call) this.answered.add(call.id);
    return call?.id;
  }
}

/** The function responses among the parts, as tool results of the waiting calls; those answering none are left to the transcript rules. */
export function functionResults(parts: Part[], waiting: WaitingCalls): { callId: string; content: string }[] {
  return parts.flatMap((part) => {
    if (!isRecord(part.functionResponse)) return [];
    const response = part.functionResponse;
    const id = str(response.id);
    return [{ callId: waiting.answer(id, str(response.name)) ?? id ?? '', content: responseText(response.response) }];
  });
}
