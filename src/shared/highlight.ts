/**
 * Code highlighting as a tree, never as HTML: highlight.js returns only
 * `<span class="…">`, `</span>` and text it escaped itself, so that output is read back by
 * a tokenizer for exactly this grammar and turned into nodes React renders. Nothing from
 * the code reaches a DOM parser.
 */
import hljs from 'highlight.js/lib/common';
import { decodeCharacterReferences } from './character-references';

export type Highlighted = string | { className: string; children: Highlighted[] };

export interface HighlightedCode {
  /** The block's language when highlight.js knows it. */
  language: string | null;
  nodes: Highlighted[];
}

// Highlighting large blocks is the slow part of rendering: past 20k characters show them plain.
const MAX_HIGHLIGHTED = 20_000;
const PIECE = /<span class="([\w -]+)">|(<\/span>)|([^<]+)/y;

export function highlightCode(text: string, lang: string | undefined): HighlightedCode {
  const name = (lang ?? '').trim().split(/\s+/)[0];
  const language = name && hljs.getLanguage(name) ? name : null;
  if (!language || text.length >= MAX_HIGHLIGHTED) return { language, nodes: [text] };
  const html = hljs.highlight(text, { language, ignoreIllegals: true }).value;
  return { language, nodes: spanTree(html) ?? [text] };
}

/** The span tree of highlight.js output, or null for anything outside its grammar. */
function spanTree(html: string): Highlighted[] | null {
  const root: Highlighted[] = [];
  /** The children lists of the spans around `current`, outermost first. */
  const outer: Highlighted[][] = [];
  let current = root;
  PIECE.lastIndex = 0;
  while (PIECE.lastIndex < html.length) {
    const piece = PIECE.exec(html);
    if (!piece) return null;
    const [, className, close, text] = piece;
    if (className !== undefined) {
      const span = { className, children: [] as Highlighted[] };
      current.push(span);
      outer.push(current);
      current = span.children;
    } else if (close !== undefined) {
      const parent = outer.pop();
      if (parent === undefined) return null;
      current = parent;
    } else if (text !== undefined) {
      current.push(decodeCharacterReferences(text));
    }
  }
  return outer.length === 0 ? root : null;
}
