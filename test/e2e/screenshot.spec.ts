/**
 * Makes docs/screenshot.png, the README's picture of the browser mode at 1280×800, from a
 * seeded session: `LOOM_SCREENSHOT=1 npx playwright test test/e2e/screenshot.spec.ts`.
 * Skipped otherwise: it writes into the checkout.
 */
import path from 'node:path';
import { expect, openLoom, sidebarRow, test, transcript } from './fixtures';

test.skip(!process.env.LOOM_SCREENSHOT, 'makes docs/screenshot.png only when LOOM_SCREENSHOT is set');

const REPLY = [
  'The test reads the clock, so it fails whenever CI runs past midnight UTC. Pin it:',
  '',
  '```ts',
  'const parser = new Parser({ now: () => FIXED_TIME });',
  'expect(parser.parse(input)).toEqual(expected);',
  '```',
  '',
  '> Then the run is the same on every machine.',
].join('\n');

test('the README screenshot', async ({ page, loom }) => {
  for (const title of ['Flaky CI on the parser tests', 'Release notes for 0.2', 'Why is the build slow?', 'Heron field notes', 'Refactor the tokenizer']) {
    loom.store.create({ title, model: 'gemma4', projectDir: loom.projectDir, messages: [{ role: 'user', content: title }] });
  }
  loom.store.create({
    title: 'Pinning the clock in the parser test',
    model: 'gemma4',
    projectDir: loom.projectDir,
    messages: [
      { role: 'system', content: 'You are Loom.' },
      { role: 'user', content: 'Why does the parser test fail only on CI?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"test/parser.test.ts"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'const parser = new Parser();\nexpect(parser.parse(input)).toEqual(expected);' },
      { role: 'assistant', content: REPLY },
    ],
  });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
  await openLoom(page, loom);
  await sidebarRow(page, 'Pinning the clock')
    .getByRole('button', { name: /^Pinning the clock/ })
    .click();
  await expect(transcript(page).locator('.code-lang')).toHaveText('ts');
  await page.getByRole('textbox', { name: 'Message' }).blur();
  await transcript(page).evaluate((log) => log.scrollTo(0, 0));
  await page.screenshot({ path: path.resolve('docs/screenshot.png') });
});
