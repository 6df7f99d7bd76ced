/**
 * A reply's Markdown as an HTML string, for the HTML export: the same marked tokens, link
 * and image rules and highlighting as the window's components/Markdown.tsx, and the same
 * elements and classes, so the file reads as the transcript does. Every piece of text is
 * escaped here: raw HTML in a reply is shown as the text it is, as in the window.
 */
import type { MarkedToken, Token, Tokens } from 'marked';
import { decodeCharacterReferences } from '../../shared/character-references';
import { highlightCode, type Highlighted } from '../../shared/highlight';
import { inlineImageSrc, lexMarkdown, safeLinkHref } from '../../shared/markdown';

export function markdownHtml(text: string): string {
  return `<div class="markdown">${blocks(lexMarkdown(text))}</div>`;
}

export function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}

/** Text as shown: marked leaves character references in it, which the window decodes too. */
const shown = (text: string) => escapeHtml(decodeCharacterReferences(text));

function blocks(tokens: Token[]): string {
  return tokens.map((token) => block(token as MarkedToken)).join('');
}

function block(token: MarkedToken): string {
  switch (token.type) {
    case 'space':
    case 'def':
      return '';
    case 'paragraph':
      return `<p>${inline(token.tokens)}</p>`;
    case 'heading':
      return `<h${token.depth}>${inline(token.tokens)}</h${token.depth}>`;
    case 'code':
      return codeBlock(token);
    case 'blockquote':
      return `<blockquote>${blocks(token.tokens)}</blockquote>`;
    case 'list':
      return list(token);
    case 'table':
      return table(token);
    case 'hr':
      return '<hr>';
    case 'html':
      return `<p class="raw-html">${escapeHtml(token.text.trimEnd())}</p>`;
    case 'text':
      return token.tokens ? inline(token.tokens) : shown(token.text);
    default:
      return inlineToken(token, false);
  }
}

function list(token: Tokens.List): string {
  const items = token.items.map((item) => `<li>${blocks(item.tokens)}</li>`).join('');
  if (!token.ordered) return `<ul>${items}</ul>`;
  const start = token.start === '' || token.start === 1 ? '' : ` start="${Number(token.start)}"`;
  return `<ol${start}>${items}</ol>`;
}

function table(token: Tokens.Table): string {
  const cell = (c: Tokens.TableCell) => {
    const tag = c.header ? 'th' : 'td';
    return `<${tag}${c.align ? ` align="${c.align}"` : ''}>${inline(c.tokens)}</${tag}>`;
  };
  const rows = token.rows.map((row) => `<tr>${row.map(cell).join('')}</tr>`).join('');
  return `<table><thead><tr>${token.header.map(cell).join('')}</tr></thead>${rows ? `<tbody>${rows}</tbody>` : ''}</table>`;
}

/** Inline tokens; inside a link no further links are made (nested anchors are invalid). */
function inline(tokens: Token[], inLink = false): string {
  return tokens.map((token) => inlineToken(token as MarkedToken, inLink)).join('');
}

function inlineToken(token: MarkedToken, inLink: boolean): string {
  switch (token.type) {
    case 'text':
      return token.tokens ? inline(token.tokens, inLink) : shown(token.text);
    case 'escape':
      return escapeHtml(token.text);
    case 'strong':
      return `<strong>${inline(token.tokens, inLink)}</strong>`;
    case 'em':
      return `<em>${inline(token.tokens, inLink)}</em>`;
    case 'del':
      return `<del>${inline(token.tokens, inLink)}</del>`;
    case 'codespan':
      return `<code>${escapeHtml(token.text)}</code>`;
    case 'br':
      return '<br>';
    case 'link':
      return link(inLink ? null : safeLinkHref(token.href), token.title, inline(token.tokens, true));
    case 'image':
      return image(token, inLink);
    case 'checkbox':
      return `<span class="task" role="img" aria-label="${token.checked ? 'done' : 'not done'}">${token.checked ? '☑ ' : '☐ '}</span>`;
    case 'html':
      return escapeHtml(token.text);
    default:
      return escapeHtml(token.raw);
  }
}

/** A link that opens outside (http, https, mailto only), else its words as text. */
function link(href: string | null, title: string | null | undefined, content: string): string {
  if (!href) return `<span>${content}</span>`;
  const titled = title ? ` title="${shown(title)}"` : '';
  return `<a href="${escapeHtml(href)}"${titled} target="_blank" rel="noopener noreferrer">${content}</a>`;
}

const IMAGE_MARK = '🖼 ';

/** Drawn only from a data URL in the reply; a remote image becomes a link to it, as in the window. */
function image(token: Tokens.Image, inLink: boolean): string {
  const src = inlineImageSrc(token.href);
  const titled = token.title ? ` title="${shown(token.title)}"` : '';
  if (src) return `<img src="${escapeHtml(src)}" alt="${shown(token.text)}"${titled}>`;
  const label = escapeHtml(IMAGE_MARK + decodeCharacterReferences(token.text || token.href));
  return link(inLink ? null : safeLinkHref(token.href), token.title, label);
}

/** The window's code block: a header naming the language, the code highlighted with highlight.js's classes. */
function codeBlock(token: Tokens.Code): string {
  const { language, nodes } = highlightCode(token.text, token.lang);
  const head = language ? `<div class="code-head"><span class="code-lang">${escapeHtml(language)}</span></div>` : '';
  const lang = language ? ` data-lang="${escapeHtml(language)}"` : '';
  return `<div class="code-block">${head}<pre class="code"${lang}><code class="hljs">${highlighted(nodes)}</code></pre></div>`;
}

function highlighted(nodes: Highlighted[]): string {
  return nodes
    .map((node) => (typeof node === 'string' ? escapeHtml(node) : `<span class="${escapeHtml(node.className)}">${highlighted(node.children)}</span>`))
    .join('');
}
