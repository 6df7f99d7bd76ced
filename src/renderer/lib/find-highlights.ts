/**
 * Find in session's highlights, through the CSS Custom Highlight API: ranges over the
 * rendered text, styled by `::highlight(find-match)` and `::highlight(find-current)` in
 * styles.css. Marking up the DOM instead (<mark> elements) would split text nodes React
 * owns, which its next update of a message (a fact, an opened card) would trip over.
 */
import type { FindTarget } from '../components/FindBar';

const MATCH = 'find-match';
const CURRENT = 'find-current';
/** Text that is the app's, not the message's: who wrote it, its facts and buttons. */
const NOT_MESSAGE_TEXT = '.msg-who, .msg-foot, .msg-actions, button';

/** Highlights `find`'s terms in the rendered rows of its matching messages under `root`; null clears them. */
export function paintMatches(root: HTMLElement | null, find: FindTarget | null): void {
  if (typeof CSS === 'undefined' || !('highlights' in CSS)) return;
  if (!root || !find) {
    CSS.highlights.delete(MATCH);
    CSS.highlights.delete(CURRENT);
    return;
  }
  const all = new Highlight();
  const current = new Highlight();
  for (const row of root.querySelectorAll<HTMLElement>('[data-message]')) {
    const index = Number(row.dataset.message);
    if (!find.matches.has(index)) continue;
    for (const range of rangesOf(row, find.patterns)) (index === find.current ? current : all).add(range);
  }
  CSS.highlights.set(MATCH, all);
  CSS.highlights.set(CURRENT, current);
}

/** Every occurrence of each pattern in the element's message text, a phrase across elements (a word in bold) included. */
function rangesOf(element: HTMLElement, patterns: RegExp[]): Range[] {
  const nodes: { node: Text; start: number }[] = [];
  let text = '';
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => (node.parentElement?.closest(NOT_MESSAGE_TEXT) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    nodes.push({ node: node as Text, start: text.length });
    text += (node as Text).data;
  }
  const at = (offset: number, end: boolean): [Text, number] | null => {
    // The node holding the offset; an end on a boundary stays in the node before it.
    for (let i = nodes.length - 1; i >= 0; i--) {
      const entry = nodes[i]!;
      if (end ? entry.start < offset : entry.start <= offset) return [entry.node, offset - entry.start];
    }
    return null;
  };
  const ranges: Range[] = [];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) {
      if (match[0].length === 0) continue;
      const from = at(match.index, false);
      const to = at(match.index + match[0].length, true);
      if (!from || !to) continue;
      const range = document.createRange();
      range.setStart(...from);
      range.setEnd(...to);
      ranges.push(range);
    }
  }
  return ranges;
}
