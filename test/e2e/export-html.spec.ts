/**
 * The HTML export opened in Chromium: a hostile reply's Markdown is rendered as the window
 * renders it (headings, lists, a blockquote with its bar, code with its language) and
 * nothing in it runs; the system prompt is folded; the page follows the system's theme and
 * passes axe in both. The fixture fails the test on any CSP report (a blocked script, or a
 * stylesheet the page's own hash does not allow).
 */
import { pathToFileURL } from 'node:url';
import { HOSTILE_REPLY } from '../support/hostile-markdown';
import { expectNoAxeViolations } from './axe';
import { expect, openLoom, sessionAction, test } from './fixtures';

test('the exported HTML shows the reply rendered, runs nothing, folds the system prompt, and follows the theme', async ({ page, loom }, testInfo) => {
  loom.store.create({
    title: 'Herons',
    model: 'gemma4',
    cwd: loom.projectDir,
    messages: [
      { role: 'system', content: 'You are Loom. Secret rules follow.' },
      { role: 'user', content: 'Tell me about herons' },
      { role: 'assistant', content: HOSTILE_REPLY },
    ],
  });
  await openLoom(page, loom);
  const [download] = await Promise.all([page.waitForEvent('download'), sessionAction(page, 'Herons', 'Export as HTML')]);
  const file = testInfo.outputPath(download.suggestedFilename());
  await download.saveAs(file);

  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(pathToFileURL(file).href);
  await expect(page.getByRole('heading', { level: 1, name: 'Heron report' })).toBeVisible();
  await expect(page.locator('.markdown li')).toHaveCount(3);
  // Only the https link is a link; the javascript: and data: ones are their words.
  await expect(page.locator('.markdown').getByRole('link')).toHaveText(['the source']);
  const quote = page.locator('blockquote');
  await expect(quote).toHaveText('Stand still, then strike.');
  expect(await quote.evaluate((el) => parseFloat(el.ownerDocument.defaultView!.getComputedStyle(el).borderLeftWidth))).toBeGreaterThan(0);
  const code = page.locator('.code-block');
  await expect(code.locator('.code-lang')).toHaveText('js');
  await expect(code.locator('pre')).toHaveText('const strike = "</code></pre><script>window.pwned = 5</script>";');
  await expect(page.getByText('Herons <script>window.pwned = 1</script> wade <img src=x onerror="window.pwned = 2"> slowly.')).toBeVisible();

  // Nothing ran, and nothing that could run is in the page.
  expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
  await expect(page.locator('script, iframe, img, [onerror], [onclick]')).toHaveCount(0);

  // The system prompt is there, folded.
  await expect(page.getByText('System prompt')).toBeVisible();
  await expect(page.getByText('You are Loom. Secret rules follow.')).toBeHidden();

  const background = () => page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
  expect(await background()).toBe('rgb(255, 255, 255)');
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await background()).toBe('rgb(22, 24, 29)');
  await expectNoAxeViolations(page);
});
