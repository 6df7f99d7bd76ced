/**
 * Model output as HTML that is safe to insert: Markdown by marked, code highlighted by
 * highlight.js, then sanitised by DOMPurify (no scripts, no event handlers, no inline
 * styles, no forms). Links open outside the app; remote images are blocked by the CSP.
 */
import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/common';
import { Marked } from 'marked';

const marked = new Marked({
  gfm: true,
  renderer: {
    code({ text, lang }) {
      const language = (lang ?? '').trim().split(/\s+/)[0];
      const known = language && hljs.getLanguage(language);
      // Highlighting large blocks is the slow part of rendering: past 20k characters show them plain.
      const body = known && text.length < 20_000 ? hljs.highlight(text, { language, ignoreIllegals: true }).value : escapeHtml(text);
      const label = known ? ` data-lang="${escapeHtml(language)}"` : '';
      return `<pre class="code"${label}><code class="hljs">${body}</code></pre>\n`;
    },
  },
});

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

const PURIFY_CONFIG = {
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed'],
  FORBID_ATTR: ['style', 'srcset'],
  ALLOW_DATA_ATTR: false,
  ADD_ATTR: ['target'],
};

export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false });
  return DOMPurify.sanitize(html, PURIFY_CONFIG);
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
