/**
 * What a search query means (docs/DESIGN.md#search): "quoted words" are a phrase, other
 * words all required, nothing the user types an FTS5 operator; and the snippet always
 * shows the matched word, however deep in a long message it is.
 */
import { describe, expect, it } from 'vitest';
import { searchTerms } from '../../src/shared/search-terms';
import { assistant, openStore, system, user } from './helpers';

function titles(store: ReturnType<typeof openStore>, query: string): string[] {
  return store
    .search(query)
    .map((hit) => hit.title ?? '')
    .sort();
}

describe('search queries', () => {
  it('a quoted phrase matches its words together and in order; unquoted words anywhere', () => {
    const store = openStore();
    store.create({ title: 'Together', messages: [system(), user('The blue heron stood still.')] });
    store.create({ title: 'Apart', messages: [system(), user('A heron, and later something blue.')] });
    store.create({ title: 'Reversed', messages: [system(), user('Heron blue is not a colour.')] });
    expect(titles(store, '"blue heron"')).toEqual(['Together']);
    expect(titles(store, 'blue heron')).toEqual(['Apart', 'Reversed', 'Together']);
    expect(titles(store, '"blue heron" still')).toEqual(['Together']);
    // A quote left open runs to the end.
    expect(titles(store, '"heron blue')).toEqual(['Reversed']);
  });

  it('FTS5 syntax typed by the user is searched for, never run, and never an error', () => {
    const store = openStore();
    store.create({ title: 'Ops', messages: [system(), user('heron NOT egret OR crane')] });
    for (const query of ['heron NOT egret', 'NEAR(heron crane)', '"heron" AND', 'col:heron', '*', '"', '""', '(', 'heron^', '"a"b"c']) {
      expect(() => store.search(query)).not.toThrow();
    }
    expect(titles(store, 'heron NOT egret')).toEqual(['Ops']);
    expect(titles(store, '"NOT egret OR"')).toEqual(['Ops']);
  });

  it('reads terms as the find bar does too', () => {
    expect(searchTerms('  "two  words" three "four')).toEqual(['two words', 'three', 'four']);
    expect(searchTerms('a"b" -- ""')).toEqual(['a', 'b']);
  });
});

describe('search snippets', () => {
  it('show a window around a match after 1,000 characters, not the start of the message', () => {
    const store = openStore();
    // Long words: four of them before the match would already fill the sidebar's two lines.
    const filler = 'internationalisation/considerations.txt '.repeat(30);
    store.create({ title: 'Deep', messages: [system(), user(`${filler}Here the pelican lands. ${filler}`)] });
    const [hit] = store.search('pelican');
    expect(hit?.snippet).toMatch(/^….{0,40}\[pelican\] lands\./);
  });

  it('cut a long unbroken word so the match stays near the start', () => {
    const store = openStore();
    store.create({ title: 'Word', messages: [system(), assistant(`${'x'.repeat(1500)} pelican ${'y'.repeat(300)}`)] });
    const [hit] = store.search('pelican');
    expect(hit?.snippet.indexOf('[pelican]')).toBeLessThanOrEqual(42);
    expect(hit?.snippet.length).toBeLessThanOrEqual(170);
  });
});
