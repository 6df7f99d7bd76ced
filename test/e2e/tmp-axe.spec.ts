import AxeBuilder from '@axe-core/playwright';
import { SUMMARY, expect, newSession, openLoom, send, test, transcript } from './fixtures';

for (const theme of ['light', 'dark'] as const) {
  test(`axe ${theme}`, async ({ page, loom }) => {
    await page.emulateMedia({ colorScheme: theme });
    loom.model.enqueue({ chunks: ['Some ', 'code:\n\n```js\nconst x = 1;\n```\n'], usage: { prompt_tokens: 1234, completion_tokens: 56 }, chunkDelayMs: 20 }, SUMMARY('Axe'));
    await openLoom(page, loom);
    await newSession(page);
    await send(page, 'code please');
    await expect(transcript(page).getByRole('article', { name: 'Assistant' }).locator('.msg-facts')).toContainText('tok/s');
    const scan = async (include?: string) => {
      let b = new AxeBuilder({ page }).exclude('.tabs');
      if (include) b = b.include(include);
      const r = await b.analyze();
      return r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ') + ' ' + n.failureSummary).join(' | ')}`);
    };
    expect(await scan()).toEqual([]);
    await page.getByRole('button', { name: 'Model: gemma4' }).click();
    await expect(page.getByRole('dialog', { name: 'Model for this session' }).getByRole('combobox')).toBeVisible();
    expect(await scan('dialog')).toEqual([]);
    await page.getByRole('dialog', { name: 'Model for this session' }).getByRole('combobox').selectOption('scripted-model');
    await page.getByRole('button', { name: 'Use this model' }).click();
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.getByRole('combobox', { name: /^Model/ }).selectOption('Type another name…');
    await dialog.getByRole('textbox', { name: /^Model \(/ }).fill('nope');
    await dialog.getByRole('button', { name: 'Test connection' }).click();
    await expect(dialog.locator('.connection-result')).toContainText('no model');
    expect(await scan('dialog')).toEqual([]);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Info' }).click();
    await expect(page.getByRole('table', { name: 'Model changes' })).toBeVisible();
    expect(await scan('dialog')).toEqual([]);
  });
}
