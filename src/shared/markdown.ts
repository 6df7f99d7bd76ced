/**
 * Model output as Markdown tokens, never as HTML: marked's lexer splits the text into
 * tokens that components/Markdown turns into React elements, so no string from the model
 * is ever parsed by the browser (raw HTML in a reply is shown as the text it is). This
 * module also decides which URLs a reply may use.
 */
import { Marked, type Token } from 'marked';
import { decodeCharacterReferences } from './character-references';

const marked = new Marked({ gfm: true });

export function lexMarkdown(text: string): Token[] {
  return marked.lexer(text);
}

const LINK_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

/** A link target that opens outside the app (http, https, mailto), else null: shown as text. */
export function safeLinkHref(href: string): string | null {
  const url = parseUrl(href);
  return url && LINK_PROTOCOLS.has(url.protocol) ? url.href : null;
}

// The CSP allows images from data: only; SVG is left out because it can carry script.
const INLINE_IMAGE = /^data:image\/(png|jpeg|gif|webp);base64,[a-z0-9+/=]+$/i;

/**
 * A reply's image is drawn only when its bytes are in the reply (a base64 PNG, JPEG, GIF
 * or WebP data URL). A remote image would be a request the model chose (and the CSP blocks
 * it anyway): it is shown as a link instead, see components/Markdown.
 */
export function inlineImageSrc(href: string): string | null {
  const src = decodeCharacterReferences(href).trim();
  return INLINE_IMAGE.test(src) ? src : null;
}

function parseUrl(href: string): URL | null {
  try {
    return new URL(decodeCharacterReferences(href).trim());
  } catch {
    return null;
  }
}
