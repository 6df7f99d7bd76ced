/**
 * What the session's own tool calls did to the project (docs/DESIGN.md#what-compaction-carries):
 * every file it created, overwrote or edited, and the last failing command until a later
 * one succeeds. Read from the calls and their results as they are recorded, never from a
 * summary, so a compaction cannot lose it.
 */
import { toolText } from '../../shared/fences';
import type { ChatMessage, ToolCall } from '../../shared/types';

export type FileAction = 'created' | 'overwritten' | 'edited';

export interface LedgerFile {
  path: string;
  action: FileAction;
}

export interface FailingCommand {
  command: string;
  /** The end of what it printed, as the model saw it. */
  output: string;
}

/** Most characters of a failing command's output carried. */
const FAILURE_OUTPUT_CHARS = 1_200;
const MAX_COMMAND_CHARS = 500;

export class Ledger {
  /** In the order each file was first changed; a later change moves it to the end (newest last). */
  private readonly byPath = new Map<string, LedgerFile>();
  failing: FailingCommand | null = null;
  /** Calls seen whose results have not come yet, by id. */
  private readonly pending = new Map<string, ToolCall>();

  static from(transcript: readonly ChatMessage[]): Ledger {
    const ledger = new Ledger();
    for (const message of transcript) ledger.see(message);
    return ledger;
  }

  get files(): LedgerFile[] {
    return [...this.byPath.values()];
  }

  /** Takes in each transcript message as it is recorded. */
  see(message: ChatMessage): void {
    if (message.role === 'assistant') {
      this.pending.clear();
      for (const call of message.tool_calls ?? []) this.pending.set(call.id, call);
    } else if (message.role === 'tool') {
      const call = this.pending.get(message.tool_call_id);
      // Imported results may carry no fence; toolText gives those back as they are.
      if (call) this.record(call, toolText(message.content ?? ''));
    }
  }

  private record(call: ToolCall, result: string): void {
    const name = call.function.name;
    if (name === 'write_file' || name === 'edit_file') {
      const action = fileAction(name, result);
      const path = stringArgument(call, 'path');
      if (action && path) this.changed(path, action);
    } else if (name === 'run_bash') {
      const exit = /^Exit code: (\S+)/.exec(result)?.[1];
      if (exit === undefined) return;
      this.failing = exit === '0' ? null : { command: (stringArgument(call, 'command') ?? '').slice(0, MAX_COMMAND_CHARS), output: tail(result) };
    }
  }

  private changed(path: string, action: FileAction): void {
    const known = this.byPath.get(path);
    this.byPath.delete(path);
    // A file the session created stays "created" however often it is changed after.
    const kept: FileAction = known?.action === 'created' ? 'created' : action;
    this.byPath.set(path, { path, action: kept });
  }
}

/** What a file tool's result says it did; null for an error or a denial. */
function fileAction(tool: 'write_file' | 'edit_file', result: string): FileAction | null {
  if (tool === 'edit_file') return result.startsWith('Edited ') ? 'edited' : null;
  if (result.startsWith('Created ')) return 'created';
  if (result.startsWith('Overwrote ')) return 'overwritten';
  return null;
}

function stringArgument(call: ToolCall, name: string): string | null {
  try {
    const value: unknown = (JSON.parse(call.function.arguments) as Record<string, unknown>)[name];
    return typeof value === 'string' && value.length > 0 && value.length <= 4_096 ? value : null;
  } catch {
    return null;
  }
}

function tail(text: string): string {
  return text.length <= FAILURE_OUTPUT_CHARS ? text : `…${text.slice(-FAILURE_OUTPUT_CHARS)}`;
}
