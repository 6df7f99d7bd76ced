/**
 * Find in session (docs/DESIGN.md#find-in-session): every message of the whole transcript
 * holding all the terms, in order, a fork's inherited rows included, as the transcript
 * shows the text (no fences, any case, "quoted words" as a phrase).
 */
import { describe, expect, it } from 'vitest';
import { wrapToolResult, wrapUserInput } from '../../src/core/security/untrusted';
import { assistant, openStore, system, tool, user } from './helpers';

describe('find in session', () => {
  it('finds every matching message in order, any case, all words required, a quoted phrase as written', () => {
    const store = openStore();
    const { id } = store.create({
      messages: [
        system('You are Loom, a heron expert.'),
        user(wrapUserInput('Where does the Grey Heron nest?')),
        assistant('In tall trees; the heron is grey.'),
        user(wrapUserInput('And the egret?')),
        assistant(null, [{ id: 'call_1', name: 'read_file', args: '{"path":"grey-heron.md"}' }]),
        tool('call_1', wrapToolResult('read_file', 'Herons and egrets nest together.')),
      ],
    });
    expect(store.find(id, 'heron')).toEqual([1, 2, 4, 5]);
    expect(store.find(id, 'HERON grey')).toEqual([1, 2, 4]);
    expect(store.find(id, '"grey heron"')).toEqual([1]);
    expect(store.find(id, '"heron is grey" trees')).toEqual([2]);
    // Loom's fences are not what the user sees: their tags match nothing.
    expect(store.find(id, 'user_input')).toEqual([]);
    expect(store.find(id, 'tool_result')).toEqual([]);
    // The system prompt is not searched; text that looks like a pattern is taken literally.
    expect(store.find(id, 'expert')).toEqual([]);
    expect(store.find(id, '.*')).toEqual([]);
    expect(store.find(id, '"')).toEqual([]);
  });

  it("finds in a fork's rows inherited from its parent, and not in the parent's rows after the fork point", () => {
    const store = openStore();
    const parent = store.create({ messages: [system(), user('kingfisher one'), assistant('kingfisher two'), user('kingfisher after the fork')] });
    const fork = store.fork(parent.id, 3);
    store.appendMessage(fork.id, user('kingfisher in the fork'));
    const grandchild = store.fork(fork.id);
    expect(store.find(fork.id, 'kingfisher')).toEqual([1, 2, 3]);
    expect(store.find(grandchild.id, 'kingfisher')).toEqual([1, 2, 3]);
    expect(store.find(fork.id, '"in the fork"')).toEqual([3]);
    expect(store.find(parent.id, 'kingfisher')).toEqual([1, 2, 3]);
    expect(store.find(parent.id, '"after the fork"')).toEqual([3]);
  });
});
