/**
 * A reply's Markdown as plain text, for "Copy as text": built from the same marked tokens
 * the transcript renders (shared/markdown), so what is copied is what is read, without the
 * Markdown syntax. Links keep their target in brackets, images their alt text, code its
 * text, list items a "- " or "1. " in front, table cells a tab between them.
 */
import type { MarkedToken, Token, Tokens } from 'marked';
import { decodeCharacterReferences } from '../../shared/character-references';
import { lexMarkdown } from '../../shared/markdown';

export function markdownToPlainText(markdown: string): string {
  return blocksText(lexMarkdown(markdown)).trim();
}

function blocksText(tokens: Token[]): string {
  return tokens
    .map((token) => blockText(token as MarkedToken))
    .filter((text) => text !== '')
    .join('\n\n');
}

function blockText(token: MarkedToken): string {
  switch (token.type) {
    case 'space':
    case 'def':
    case 'hr':
      return '';
    case 'paragraph':
    case 'heading':
      return inlineText(token.tokens);
    case 'code':
      return token.text;
    case 'blockquote':
      return blocksText(token.tokens);
    case 'list':
      return listText(token);
    case 'table':
      return [token.header, ...token.rows].map((row) => row.map((cell) => inlineText(cell.tokens)).join('\t')).join('\n');
    case 'html':
      return token.text.trimEnd();
    case 'text':
      return token.tokens ? inlineText(token.tokens) : decodeCharacterReferences(token.text);
    default:
      return inlineToken(token);
  }
}

function listText(list: Tokens.List): string {
  const first = list.start === '' ? 1 : list.start;
  return list.items
    .map((item, i) => {
      const mark = list.ordered ? `${first + i}. ` : '- ';
      const task = item.task ? (item.checked ? '[x] ' : '[ ] ') : '';
      // The item's checkbox token is said by `task`; a loose item's blocks keep one line between them.
      const body = blocksText(item.tokens.filter((t) => t.type !== 'checkbox')).replace(/\n\n/g, '\n');
      return mark + task + body.replace(/\n/g, `\n${' '.repeat(mark.length)}`);
    })
    .join('\n');
}

function inlineText(tokens: Token[]): string {
  return tokens.map((token) => inlineToken(token as MarkedToken)).join('');
}

function inlineToken(token: MarkedToken): string {
  switch (token.type) {
    case 'text':
      return token.tokens ? inlineText(token.tokens) : decodeCharacterReferences(token.text);
    case 'escape':
      return token.text;
    case 'strong':
    case 'em':
    case 'del':
      return inlineText(token.tokens);
    case 'codespan':
      return decodeCharacterReferences(token.text);
    case 'br':
      return '\n';
    case 'link': {
      const text = inlineText(token.tokens);
      const href = decodeCharacterReferences(token.href);
      return text === href || `mailto:${text}` === href ? text : `${text} (${href})`;
    }
    case 'image':
      return decodeCharacterReferences(token.text);
    case 'checkbox':
      return '';
    case 'html':
      return token.text;
    default:
      return token.raw;
  }
}
