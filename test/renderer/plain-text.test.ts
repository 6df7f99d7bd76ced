/** "Copy as text": a reply's Markdown as the plain text a reader sees. */
import { describe, expect, it } from 'vitest';
import { markdownToPlainText } from '../../src/renderer/lib/plain-text';

describe('markdownToPlainText', () => {
  it('drops the Markdown syntax and keeps the words, paragraphs apart', () => {
    expect(markdownToPlainText('# Title\n\nSome **bold**, *em* and `code` text.\n\nSecond ~~old~~ para.')).toBe(
      'Title\n\nSome bold, em and code text.\n\nSecond old para.',
    );
  });

  it('keeps code blocks as their code, links with their target, images as their alt text', () => {
    expect(markdownToPlainText('Run:\n\n```sh\nnpm test\n```\n\nSee [the docs](https://example.com/docs) or https://example.com and ![a cat](cat.png).')).toBe(
      'Run:\n\nnpm test\n\nSee the docs (https://example.com/docs) or https://example.com and a cat.',
    );
  });

  it('numbers ordered lists, marks bullets and tasks, and indents continued lines', () => {
    expect(markdownToPlainText('3. three\n4. four\n\n- [x] done\n- [ ] todo\n- a\n  b')).toBe('3. three\n4. four\n\n- [x] done\n- [ ] todo\n- a\n  b');
  });

  it('puts table cells a tab apart, a row per line, and character references decoded', () => {
    expect(markdownToPlainText('| a | b |\n|---|---|\n| 1 &amp; 2 | 3 |')).toBe('a\tb\n1 & 2\t3');
  });

  it('shows raw HTML as the text it is', () => {
    expect(markdownToPlainText('<b>hi</b> there')).toBe('<b>hi</b> there');
  });
});
