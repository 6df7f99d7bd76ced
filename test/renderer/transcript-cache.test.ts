/** The transcript cache: messages held by position, whatever brought them and in what order. */
import { describe, expect, it } from 'vitest';
import { PAGE_SIZE, TranscriptCache } from '../../src/renderer/state/transcript-cache';
import type { ChatMessage } from '../../src/shared/types';

const say = (content: string): ChatMessage => ({ role: 'user', content });

describe('TranscriptCache', () => {
  it('keeps a live message that a page fetched before it lacks', () => {
    const cache = new TranscriptCache();
    cache.put(2, say('live'), null);
    cache.putPage({ total: 2, offset: 0, messages: [say('a'), say('b')], facts: [null, null] });
    expect([0, 1, 2].map((seq) => cache.message(seq)?.content)).toEqual(['a', 'b', 'live']);
    expect(cache.pagesLacking(0, 2, 3)).toEqual([]);
  });

  it('says a position was new only the first time', () => {
    const cache = new TranscriptCache();
    expect(cache.put(0, say('a'), null)).toBe(true);
    expect(cache.put(0, say('a'), null)).toBe(false);
  });

  it('asks for the pages in view that lack a message, and none past the end', () => {
    const cache = new TranscriptCache();
    cache.putPage({ total: PAGE_SIZE + 5, offset: 0, messages: Array.from({ length: PAGE_SIZE }, (_, i) => say(`${i}`)), facts: [] });
    expect(cache.pagesLacking(0, 10 * PAGE_SIZE, PAGE_SIZE + 5)).toEqual([1]);
    expect(cache.pagesLacking(0, 10, 0)).toEqual([]);
  });

  it('names the tool a result answers', () => {
    const cache = new TranscriptCache();
    cache.put(1, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } }] }, null);
    expect(cache.toolNameFor('c1', 2)).toBe('read_file');
    expect(cache.toolNameFor('c2', 2)).toBeUndefined();
  });
});
