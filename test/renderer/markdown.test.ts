/**
 * Replies as Markdown (components/Markdown): rendered by React's server renderer, the way
 * the window builds them — raw HTML stays text, only http(s)/mailto links and data-URL
 * images survive, code is highlighted as spans, and the usual Markdown looks as before.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Markdown } from '../../src/renderer/components/Markdown';
import { highlightCode } from '../../src/shared/highlight';

const render = (text: string) => renderToStaticMarkup(createElement(Markdown, { text }));
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('raw HTML in a reply is shown as text', () => {
  it.each([
    '<img src=x onerror="window.pwned=1">',
    '<script>window.pwned=1</script>',
    '<iframe src="https://evil.example/"></iframe>',
    'before <svg onload=alert(1)> after',
    '<a href="javascript:alert(1)">click</a>',
    '<style>body{display:none}</style>',
    '<div>\n\n*still* <b>markdown</b>\n\n</div>',
  ])('%s', (reply) => {
    const inside = render(reply).replace(/^<div class="markdown">|<\/div>$/g, '');
    expect(inside).not.toMatch(/<(img|script|iframe|svg|style|b|div|a)\b/i);
    expect(inside).toContain('&lt;');
  });

  it('keeps the words of the markup visible', () => {
    expect(render('<img src=x onerror="window.pwned=1">')).toBe(
      '<div class="markdown"><p class="raw-html">&lt;img src=x onerror=&quot;window.pwned=1&quot;&gt;</p></div>',
    );
    expect(render('a <b>bold</b> claim')).toBe('<div class="markdown"><p>a &lt;b&gt;bold&lt;/b&gt; claim</p></div>');
  });
});

describe('links open outside the app and only for http(s) and mailto', () => {
  it('http, https, mailto and autolinks become external links', () => {
    expect(render('[docs](https://example.com/a?b=1&amp;c=2 "The docs")')).toBe(
      '<div class="markdown"><p><a href="https://example.com/a?b=1&amp;c=2" title="The docs" target="_blank" rel="noopener noreferrer">docs</a></p></div>',
    );
    expect(render('see www.example.org or mail a@b.co')).toContain(
      '<a href="http://www.example.org/" target="_blank" rel="noopener noreferrer">www.example.org</a>',
    );
    expect(render('mail a@b.co')).toContain('<a href="mailto:a@b.co" target="_blank"');
  });

  it.each([
    '[click](javascript:alert(1))',
    '[click](JaVaScRiPt:alert(1))',
    '[click]( javascript&#58;alert(1))',
    '[click](vbscript:msgbox(1))',
    '[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
    '[click](file:///etc/passwd)',
    '[click](/relative/path)',
    '[click][ref]\n\n[ref]: javascript:alert(1)',
  ])('%s stays plain text', (reply) => {
    const html = render(reply);
    expect(html).not.toContain('<a');
    expect(html).toContain('click');
  });
});

describe('images are drawn only from data URLs in the reply', () => {
  it('a base64 PNG is an image', () => {
    expect(render(`![dot](${PNG})`)).toBe(`<div class="markdown"><p><img src="${PNG}" alt="dot"/></p></div>`);
  });

  it('a remote image is a link to it, not a request', () => {
    expect(render('![chart](https://evil.example/track.png)')).toBe(
      '<div class="markdown"><p><a href="https://evil.example/track.png" target="_blank" rel="noopener noreferrer">🖼 chart</a></p></div>',
    );
  });

  it.each([
    '![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)',
    '![x](javascript:alert(1))',
    '![x](//evil.example/a.png)',
    '![x](data:image/png;base64,AAA" onerror="alert(1))',
  ])('%s is no image', (reply) => {
    expect(render(reply)).not.toContain('<img');
  });

  it('an image inside a link makes no second link', () => {
    const html = render('[![x](https://a.example/i.png)](https://b.example/)');
    expect(html.match(/<a /g)).toHaveLength(1);
  });
});

describe('Markdown looks as before', () => {
  it('renders the usual blocks and spans', () => {
    const html = render(
      [
        '# Title &amp; more',
        '',
        'Some **bold**, *em*, ~~gone~~, `a<b &amp;` and \\*escaped\\* text',
        '',
        '> quoted',
        '',
        '- [x] done',
        '- [ ] open',
        '',
        '3. three',
        '4. four',
        '',
        '| a | b |',
        '|:--|--:|',
        '| 1 | 2 |',
        '',
        '---',
      ].join('\n'),
    );
    expect(html).toContain('<h1>Title &amp; more</h1>');
    expect(html).toContain('<strong>bold</strong>, <em>em</em>, <del>gone</del>, <code>a&lt;b &amp;amp;</code> and *escaped* text</p>');
    expect(html).toContain('<blockquote><p>quoted</p></blockquote>');
    expect(html).toContain('<li><span class="task" role="img" aria-label="done">☑ </span>done</li>');
    expect(html).toContain('<li><span class="task" role="img" aria-label="not done">☐ </span>open</li>');
    expect(html).toContain('<ol start="3"><li>three</li><li>four</li></ol>');
    expect(html).toContain(
      '<table><thead><tr><th align="left">a</th><th align="right">b</th></tr></thead><tbody><tr><td align="left">1</td><td align="right">2</td></tr></tbody></table>',
    );
    expect(html).toContain('<hr/>');
  });

  it('a hard line break inside a paragraph is a <br>', () => {
    expect(render('one  \ntwo')).toBe('<div class="markdown"><p>one<br/>two</p></div>');
  });

  it('code is highlighted as spans and its text kept exactly', () => {
    const html = render('```js\nconst s = "<img src=x onerror=alert(1)>" && \'&amp;\';\n```');
    expect(html).toMatch(
      /^<div class="markdown"><div class="code-block"><div class="code-head"><span class="code-lang">js<\/span><button [^>]*>Copy<\/button><span [^>]*><\/span><\/div><pre class="code" data-lang="js"><code class="hljs"><span class="hljs-keyword">const<\/span>/,
    );
    // Each block's header names its language beside its Copy button (components/CopyButton), named after it too.
    expect(html).toContain('<button type="button" class="small copy" aria-label="Copy js code">Copy</button>');
    expect(html).toContain('<span class="hljs-string">&quot;&lt;img src=x onerror=alert(1)&gt;&quot;</span>');
    expect(html).toContain('&#x27;&amp;amp;&#x27;');
    expect(html).not.toContain('<img');
  });

  it('an unknown language or a huge block is shown plain', () => {
    expect(render('```nosuchlang\n<b>x</b>\n```')).toBe(
      '<div class="markdown"><div class="code-block"><div class="code-head"><button type="button" class="small copy" aria-label="Copy code">Copy</button>' +
        '<span class="visually-hidden" role="status"></span></div><pre class="code"><code class="hljs">&lt;b&gt;x&lt;/b&gt;</code></pre></div></div>',
    );
    const big = 'let x = 1;\n'.repeat(2_000);
    expect(highlightCode(big, 'js')).toEqual({ language: 'js', nodes: [big] });
  });
});

describe('highlightCode', () => {
  it('nests sub-language spans and decodes what highlight.js escaped', () => {
    const { nodes } = highlightCode('<script>let a = "&";</script>', 'html');
    const text = (n: (typeof nodes)[number]): string => (typeof n === 'string' ? n : n.children.map(text).join(''));
    expect(nodes.map(text).join('')).toBe('<script>let a = "&";</script>');
    expect(JSON.stringify(nodes)).toContain('"className":"language-javascript"');
  });
});
