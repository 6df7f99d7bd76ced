/**
 * What a user typed into a search box, as the terms every match must hold: "quoted words"
 * are one phrase, every other whitespace-separated word a term of its own. Both the
 * sidebar's full-text search (core/store/search.ts) and find in session read a query so.
 */

/** A quoted phrase (its closing quote may be missing: the phrase runs to the end), or a word. */
const TERM = /"([^"]*)(?:"|$)|([^\s"]+)/g;

/**
 * The terms of `query`, in order, whitespace inside a phrase collapsed; none holds a `"`.
 * Terms without a letter or digit are dropped (they can match nothing useful).
 */
export function searchTerms(query: string): string[] {
  const terms: string[] = [];
  for (const [, phrase, word] of query.matchAll(TERM)) {
    const term = (phrase ?? word ?? '').trim().replace(/\s+/g, ' ');
    if (/[\p{L}\p{N}]/u.test(term)) terms.push(term);
  }
  return terms;
}

/**
 * Find in session's test of one message's text: every term occurs in it, case-insensitive
 * (a phrase as written, whitespace and all). The backend counts matches with it and the
 * transcript highlights with the same patterns (termPatterns), so both agree.
 */
export function matchesAll(text: string, patterns: RegExp[]): boolean {
  return patterns.every((pattern) => {
    pattern.lastIndex = 0;
    return pattern.test(text);
  });
}

/** One global, case-insensitive pattern per term, any regular expression syntax in it taken literally. */
export function termPatterns(terms: string[]): RegExp[] {
  return terms.map((term) => new RegExp(term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+'), 'giu'));
}
