import { describe, expect, it } from 'vitest';
import { ReplyAssembler } from '../../src/core/model/reply-assembler';
import { take } from '../support/elements';

const chunk = (delta: object, finish_reason: string | null = null) => ({ choices: [{ index: 0, delta, finish_reason }] });

/** Shapes real servers send that the scripted server does not script directly. */
describe('ReplyAssembler', () => {
  it('joins tool calls sent without an index, starting a new one on a new id', () => {
    const reply = new ReplyAssembler();
    reply.add(chunk({ tool_calls: [{ id: 'a', function: { name: 'grep', arguments: '{"pat' } }] }));
    reply.add(chunk({ tool_calls: [{ function: { arguments: 'tern":"x"}' } }] }));
    reply.add(chunk({ tool_calls: [{ id: 'b', function: { name: 'todo_list', arguments: '{}' } }] }, 'tool_calls'));
    expect(reply.message().tool_calls).toEqual([
      { id: 'a', type: 'function', function: { name: 'grep', arguments: '{"pattern":"x"}' } },
      { id: 'b', type: 'function', function: { name: 'todo_list', arguments: '{}' } },
    ]);
    expect(reply.finishReason).toBe('tool_calls');
  });

  it('gives a missing id one, turns empty arguments into {} and object arguments into JSON', () => {
    const reply = new ReplyAssembler();
    reply.add(chunk({ tool_calls: [{ index: 0, function: { name: 'todo_list', arguments: '' } }] }));
    reply.add(chunk({ tool_calls: [{ index: 1, id: '', function: { name: 'read_file', arguments: { path: 'a' } } }] }));
    const [first, second] = take(reply.message().tool_calls ?? [], 2);
    expect(first.id).toMatch(/^call_\w+/);
    expect(first.function.arguments).toBe('{}');
    expect(second.function.arguments).toBe('{"path":"a"}');
    expect(second.id).not.toBe(first.id);
  });

  it('ignores chunks without choices, other choices and junk, but keeps usage', () => {
    const reply = new ReplyAssembler();
    expect(reply.add('junk')).toBe('');
    expect(reply.add({ usage: { prompt_tokens: 7, completion_tokens: 2 } })).toBe('');
    expect(reply.recognised).toBe(false);
    expect(
      reply.add({
        choices: [
          { index: 1, delta: { content: 'other' } },
          { index: 0, delta: { content: 'mine' } },
        ],
      }),
    ).toBe('mine');
    expect(reply.message()).toEqual({ role: 'assistant', content: 'mine' });
    expect(reply.usage).toEqual({ prompt_tokens: 7, completion_tokens: 2 });
  });

  it('keeps a call the model sent without a name (so the loop can answer it), but drops empty noise', () => {
    const reply = new ReplyAssembler();
    reply.add(chunk({ tool_calls: [{ index: 0, id: 'nameless', function: { name: '', arguments: '{"path":"a"}' } }] }));
    reply.add(chunk({ tool_calls: [{ index: 1, function: { arguments: '' } }] }));
    expect(reply.message().tool_calls).toEqual([{ id: 'nameless', type: 'function', function: { name: '', arguments: '{"path":"a"}' } }]);
  });

  it('cuts a reply over its size cap: the text up to the cap, then a note; nothing more is taken', () => {
    const reply = new ReplyAssembler(10);
    expect(reply.add(chunk({ content: 'abcdef' }))).toBe('abcdef');
    expect(reply.overflowed).toBe(false);
    expect(reply.add(chunk({ content: 'ghijkl' }))).toBe('ghij');
    expect(reply.overflowed).toBe(true);
    expect(reply.add(chunk({ content: 'more' }))).toBe('');
    const note = '[reply cut at 10 characters: the model server sent more than Loom keeps of one reply, and the rest was not read.]';
    expect(reply.cutNotice()).toBe(`\n\n${note}`);
    expect(reply.message()).toEqual({ role: 'assistant', content: `abcdefghij\n\n${note}` });
    expect(reply.finishReason).toBe('length');
  });

  it('counts tool-call arguments toward the cap and drops every call of a cut reply', () => {
    const reply = new ReplyAssembler(20);
    reply.add(chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'todo_list', arguments: '{}' } }] }));
    reply.add(chunk({ tool_calls: [{ index: 1, id: 'b', function: { name: 'run_bash', arguments: '{"command":"echo ' } }] }));
    reply.add(chunk({ tool_calls: [{ index: 1, function: { arguments: 'x'.repeat(50) } }] }));
    expect(reply.overflowed).toBe(true);
    expect(reply.message()).toEqual({
      role: 'assistant',
      content:
        '[reply cut at 20 characters: the model server sent more than Loom keeps of one reply, and the rest was not read; 2 tool calls in it were dropped, not run.]',
    });
  });

  it('never ends a cut reply on half a surrogate pair', () => {
    const reply = new ReplyAssembler(3);
    expect(reply.add(chunk({ content: 'ab😀c' }))).toBe('ab');
  });
});
