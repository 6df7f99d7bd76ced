/**
 * Conversations of known token size for the compaction tests and the bench.
 */
import { estimateTotal } from '../../src/core/context/budget';
import { MESSAGE_OVERHEAD_TOKENS } from '../../src/core/model/tokens';
import type { ChatMessage } from '../../src/shared/types';

export const SYSTEM: ChatMessage = { role: 'system', content: 'You are Loom, a careful coding agent.' };

/** One user turn: a question, a tool call, its result and an answer (`turn` keeps them apart). */
export function turn(n: number, resultChars = 200): ChatMessage[] {
  return [
    { role: 'user', content: `Turn ${n}: please look at src/module${n}.ts and fix the bug.` },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `call_${n}`, type: 'function', function: { name: 'read_file', arguments: `{"path":"src/module${n}.ts"}` } }],
    },
    { role: 'tool', tool_call_id: `call_${n}`, content: `export const value${n} = ${n};\n`.padEnd(resultChars, '/') },
    { role: 'assistant', content: `Fixed module ${n}: the constant was off by one.` },
  ];
}

/** The system message followed by `turns` complete turns. */
export function conversation(turns: number, resultChars = 200): ChatMessage[] {
  const messages: ChatMessage[] = [SYSTEM];
  for (let n = 1; n <= turns; n++) messages.push(...turn(n, resultChars));
  return messages;
}

/** Appends one assistant message so that the whole context estimates at exactly `total`. */
export function padTo(messages: ChatMessage[], total: number): ChatMessage[] {
  const missing = total - estimateTotal(messages) - MESSAGE_OVERHEAD_TOKENS;
  if (missing < 0) throw new Error(`context already holds ${estimateTotal(messages)} tokens, more than ${total}`);
  return [...messages, { role: 'assistant', content: 'p'.repeat(missing * 4) }];
}
