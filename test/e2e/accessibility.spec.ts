/** Every control has an accessible name, in the main window and in each dialog; light and dark follow the system. */
import type { Page } from '@playwright/test';
import type { ChatMessage } from '../../src/shared/types';
import { expect, openLoom, sessionAction, sidebarRow, test } from './fixtures';

const CONTROL = /^\s*- (button|textbox|checkbox|switch|combobox|searchbox|menuitem|tab|spinbutton|link)(?: \[[^\]]*\])*:?$/;

async function unnamedControls(page: Page, scope = page.locator('body')): Promise<string[]> {
  const snapshot = await scope.ariaSnapshot();
  return snapshot.split('\n').filter((line) => CONTROL.test(line));
}

const CONVERSATION: ChatMessage[] = [
  { role: 'system', content: 'You are Loom.' },
  { role: 'user', content: '<user_input>\nRead the notes\n</user_input>' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"notes.md"}' } }] },
  { role: 'tool', tool_call_id: 'c1', content: '<tool_result name="read_file">\n1: hello\n</tool_result>' },
  { role: 'assistant', content: 'The notes say [hello](https://example.com).' },
];

test('every control has an accessible name', async ({ page, loom }) => {
  loom.store.create({ title: 'Notes', messages: CONVERSATION });
  await openLoom(page, loom);
  await sidebarRow(page, 'Notes')
    .getByRole('button', { name: /^Notes/ })
    .click();
  await expect(page.getByRole('heading', { level: 1, name: 'Notes' })).toBeVisible();
  expect(await unnamedControls(page)).toEqual([]);

  await sidebarRow(page, 'Notes').getByRole('button', { name: 'Actions for Notes' }).click();
  expect(await unnamedControls(page, page.getByRole('menu'))).toEqual([]);
  await page.keyboard.press('Escape');

  for (const [open, dialog] of [
    [() => page.getByRole('button', { name: 'Settings' }).click(), 'Settings'],
    [() => page.getByRole('button', { name: 'Info' }).click(), 'Session info'],
    [() => sessionAction(page, 'Notes', 'Rename…'), 'Rename session'],
    [() => sessionAction(page, 'Notes', 'Delete…'), 'Delete session?'],
  ] as const) {
    await open();
    const box = page.getByRole('dialog', { name: dialog });
    await expect(box).toBeVisible();
    expect(await unnamedControls(page, box), dialog).toEqual([]);
    await page.keyboard.press('Escape');
    await expect(box).toBeHidden();
  }
});

test('the theme follows the system', async ({ page, loom }) => {
  await openLoom(page, loom);
  const background = () => page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
  await page.emulateMedia({ colorScheme: 'light' });
  expect(await background()).toBe('rgb(255, 255, 255)');
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await background()).toBe('rgb(22, 24, 29)');
});
