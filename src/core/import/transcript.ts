/**
 * Makes a source branch a transcript a strict OpenAI-compatible server accepts next
 * (the rules of store/context-rules.ts): every tool call answered once, right after its
 * assistant message. A call the source left without a result (an aborted turn) gets the
 * same "no result" result an imported export gets; a result without its call (its call
 * was on another branch, or never written) is left out; an assistant message with neither
 * text nor calls (thinking only, an aborted empty reply) is left out.
 */
import type { ToolCall } from '../../shared/types';
import { NO_RESULT_ON_IMPORT } from '../store/context-rules';
import { assistant, type ImportedItem } from './imported';

/** In the key of a result the import wrote for a call without one. */
export const NO_RESULT_KEY = '#no-result:';

export interface PreparedBranch {
  items: ImportedItem[];
  droppedResults: number;
}

export function prepareBranch(source: readonly ImportedItem[]): PreparedBranch {
  const items: ImportedItem[] = [];
  let waiting: { key: string; calls: ToolCall[] } | undefined;
  const answered = new Set<string>();
  let droppedResults = 0;
  const closeWaiting = () => {
    for (const call of waiting?.calls ?? []) {
      if (answered.has(call.id)) continue;
      items.push({
        kind: 'message',
        key: `${waiting?.key}${NO_RESULT_KEY}${call.id}`,
        message: { role: 'tool', tool_call_id: call.id, content: NO_RESULT_ON_IMPORT },
      });
    }
    waiting = undefined;
    answered.clear();
  };

  for (const item of source) {
    const message = item.kind === 'message' ? item.message : undefined;
    if (message?.role === 'tool') {
      if (waiting?.calls.some((call) => call.id === message.tool_call_id) && !answered.has(message.tool_call_id)) {
        answered.add(message.tool_call_id);
        items.push(item);
      } else droppedResults++;
      continue;
    }
    closeWaiting();
    if (message?.role === 'assistant') {
      const calls = distinctCalls(message.tool_calls ?? []);
      if (!message.content && calls.length === 0) continue;
      items.push({ kind: 'message', key: item.key, message: assistant(message.content || null, calls) });
      waiting = { key: item.key, calls };
      continue;
    }
    items.push(item);
  }
  closeWaiting();
  return { items, droppedResults };
}

function distinctCalls(calls: ToolCall[]): ToolCall[] {
  const seen = new Set<string>();
  return calls.filter((call) => !seen.has(call.id) && seen.add(call.id));
}
