/**
 * How a session's messages are laid out: the actions under a tool result sit in the
 * message column as under any other message, a reply's blockquote has its bar and its code
 * block a header naming the language beside Copy, in both themes and both window sizes,
 * with axe clean.
 */
import type { Page } from '@playwright/test';
import { expectNoAxeViolations } from './axe';
import { expect, openLoom, sidebarRow, test, transcript } from './fixtures';

const REPLY = ['Herons hunt like this:', '', '> Stand still, then strike.', '', '```js', 'const strike = () => "now";', '```'].join('\n');

async function openHerons(page: Page): Promise<void> {
  await sidebarRow(page, 'Herons')
    .getByRole('button', { name: /^Herons/ })
    .click();
  await expect(page.getByRole('heading', { level: 1, name: 'Herons' })).toBeVisible();
}

for (const size of [
  { width: 1280, height: 800 },
  { width: 800, height: 600 },
]) {
  test(`at ${size.width}×${size.height} the tool result's actions line up with the messages; quotes have a bar, code its language`, async ({ page, loom }) => {
    loom.store.create({
      title: 'Herons',
      model: 'gemma4',
      cwd: loom.projectDir,
      messages: [
        { role: 'user', content: 'How do herons hunt?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"herons.txt"}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'Herons wade in shallow water.' },
        { role: 'assistant', content: REPLY },
      ],
    });
    await page.setViewportSize(size);
    await openLoom(page, loom);
    await openHerons(page);
    const log = transcript(page);

    const result = log.getByRole('group', { name: 'Result of read_file' });
    const column = await log.getByRole('article', { name: 'You' }).boundingBox();
    const card = await result.boundingBox();
    const fork = await page.locator('.msg-tool').getByRole('button', { name: 'Fork from here' }).boundingBox();
    if (!column || !card || !fork) throw new Error('a message, the result card or a Fork button is not laid out');
    expect(fork.x).toBeGreaterThanOrEqual(column.x);
    expect(fork.x + fork.width).toBeLessThanOrEqual(column.x + column.width);
    // Under the card's left edge.
    expect(Math.abs(fork.x - card.x)).toBeLessThanOrEqual(1);

    const reply = log.getByRole('article', { name: 'Assistant' }).filter({ hasText: 'Herons hunt like this' });
    const code = reply.locator('.code-block');
    await expect(code.locator('.code-lang')).toHaveText('js');
    await expect(code.locator('.code-lang')).toBeVisible();
    const label = await code.locator('.code-lang').boundingBox();
    const copy = await code.getByRole('button', { name: 'Copy js code' }).boundingBox();
    const pre = await code.locator('pre').boundingBox();
    if (!label || !copy || !pre) throw new Error('the code block header is not laid out');
    // One header row above the code: the language at its left, Copy at its right.
    expect(Math.abs(label.y + label.height / 2 - (copy.y + copy.height / 2))).toBeLessThanOrEqual(2);
    expect(label.x).toBeLessThan(copy.x);
    expect(copy.y + copy.height).toBeLessThanOrEqual(pre.y);

    const quote = reply.locator('blockquote');
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      const bar = await quote.evaluate((el) => {
        const style = el.ownerDocument.defaultView!.getComputedStyle(el);
        return { width: parseFloat(style.borderLeftWidth), style: style.borderLeftStyle };
      });
      expect(bar.width, theme).toBeGreaterThan(0);
      expect(bar.style, theme).toBe('solid');
    }
    await expectNoAxeViolations(page);
  });
}
