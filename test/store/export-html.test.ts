/**
 * The HTML export (src/core/store/export-html.ts) renders a reply's Markdown as the window
 * does, and nothing a model wrote can become markup: the file is read as text here, the
 * same file is opened in Chromium by test/e2e/export-html.spec.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HTML_STYLE } from '../../src/core/store/export-html';
import { nth } from '../support/elements';
import { HOSTILE_REPLY } from '../support/hostile-markdown';
import { assistant, openStore, system, user } from './helpers';

async function exported(messages = [system('You are Loom. Secret rules follow.'), user('Tell me about herons'), assistant(HOSTILE_REPLY)]): Promise<string> {
  const store = openStore();
  const { id } = store.create({ title: 'Herons', messages });
  return store.exportSession(id, 'html');
}

/** The tags a page holds, and each tag's attribute names. */
function tagsOf(html: string): { name: string; attributes: string[] }[] {
  return [...html.matchAll(/<([a-zA-Z][a-zA-Z0-9]*)((?:\s+[^\s>]+)*)\s*>/g)].map((m) => ({
    name: nth(m, 1).toLowerCase(),
    attributes: [...(m[2] ?? '').matchAll(/\s([^\s=>]+)(?:=)?/g)].map((a) => nth(a, 1).toLowerCase()),
  }));
}

describe('the HTML export renders Markdown, inert', () => {
  it('renders headings, lists, links, a blockquote and highlighted code with its language, as the window does', async () => {
    const html = await exported();
    expect(html).toContain('<h1>Heron report</h1>');
    expect(html).toContain('<blockquote><p>Stand still, then strike.</p></blockquote>');
    expect(html).toContain('<a href="https://example.com/herons" title="Herons" target="_blank" rel="noopener noreferrer">the source</a>');
    expect(html).toMatch(/<ul><li>.*<\/li><li>.*<\/li><li>.*<\/li><\/ul>/);
    expect(html).toContain(
      '<div class="code-head"><span class="code-lang">js</span></div><pre class="code" data-lang="js"><code class="hljs"><span class="hljs-keyword">const</span>',
    );
  });

  it('lets nothing of the reply become markup: no script, no event handler, no javascript: or data: link', async () => {
    const html = await exported();
    const tags = tagsOf(html);
    expect(tags.map((t) => t.name)).not.toContain('script');
    expect(tags.map((t) => t.name)).not.toContain('iframe');
    expect(tags.filter((t) => t.name === 'img')).toEqual([]);
    expect(tags.flatMap((t) => t.attributes).filter((a) => a.startsWith('on'))).toEqual([]);
    expect(html).not.toMatch(/href="(?!https:)/);
    // The attacks are there to read, as text.
    expect(html).toContain('Herons &lt;script&gt;window.pwned = 1&lt;/script&gt; wade &lt;img src=x onerror=&quot;window.pwned = 2&quot;&gt; slowly.');
    expect(html).toContain('&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;window.pwned = 5&lt;/script&gt;');
    expect(html).toContain('<span>a link</span>');
  });

  it('folds the system prompt away', async () => {
    const html = await exported();
    expect(html).toContain('<details class="msg msg-system"><summary>System prompt</summary><pre>You are Loom. Secret rules follow.</pre></details>');
  });

  it('allows its own stylesheet by hash and nothing else', async () => {
    const html = await exported();
    const hash = createHash('sha256').update(HTML_STYLE).digest('base64');
    expect(html).toContain(`content="default-src 'none'; style-src 'sha256-${hash}'; img-src data:; base-uri 'none'; form-action 'none'"`);
    expect(html).toContain(`<style>${HTML_STYLE}</style>`);
    expect(html).not.toMatch(/style="/);
  });

  it("uses the app's palette, light and dark", () => {
    const css = fs.readFileSync(path.join(__dirname, '../../src/renderer/styles.css'), 'utf8');
    const palette = (text: string) => new Map([...text.matchAll(/^\s*(--[\w-]+):\s*(light-dark\([^)]*\));/gm)].map((m) => [nth(m, 1), nth(m, 2)]));
    const app = palette(css);
    const page = palette(HTML_STYLE);
    expect(page.size).toBeGreaterThan(10);
    for (const [name, value] of page) expect([name, value]).toEqual([name, app.get(name)]);
  });
});
