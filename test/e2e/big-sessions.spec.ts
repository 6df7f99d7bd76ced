/**
 * Big sessions stay usable because the transcript and the sidebar are virtualised: only
 * the rows on screen exist in the page, and transcript pages are fetched as they scroll
 * into view. (Timings are measured by `npm run bench`, not here.)
 */
import type { ChatMessage } from '../../src/shared/types';
import { expect, openLoom, sidebarRow, test, transcript } from './fixtures';

function longConversation(count: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: 'You are Loom.' }];
  for (let i = 1; i < count; i++) {
    messages.push(
      i % 2
        ? { role: 'user', content: `<user_input>\nQuestion number ${i}\n</user_input>` }
        : { role: 'assistant', content: `Answer number ${i}, with *emphasis*.` },
    );
  }
  return messages;
}

test('a 5,000-message session opens at its latest messages and scrolls back to the first', async ({ page, loom }) => {
  loom.store.create({ title: 'Marathon', messages: longConversation(5000), cwd: loom.projectDir });
  await openLoom(page, loom);
  await sidebarRow(page, 'Marathon')
    .getByRole('button', { name: /^Marathon/ })
    .click();
  await expect(transcript(page).getByText('Question number 4999')).toBeVisible();
  await expect(transcript(page).getByText('Answer number 4998, with emphasis.')).toBeVisible();
  expect(await transcript(page).getByRole('article').count()).toBeLessThan(60);

  await transcript(page).evaluate((el) => el.scrollTo({ top: 0 }));
  await expect(transcript(page).getByText('Question number 1', { exact: true })).toBeVisible();
  await expect(transcript(page).getByText('Question number 4999')).toHaveCount(0);
});

test('a sidebar of 3,000 sessions shows a window of rows and filters by search', async ({ page, loom }) => {
  for (let i = 0; i < 3000; i++) loom.store.create({ title: `Session ${String(i).padStart(4, '0')} about ${i % 7 === 0 ? 'kingfishers' : 'rivers'}` });
  await openLoom(page, loom);
  const list = page.getByRole('list', { name: 'Session list' });
  await expect(list.getByRole('listitem').first()).toContainText('Session 2999');
  expect(await list.getByRole('listitem').count()).toBeLessThan(60);

  await page.getByRole('searchbox', { name: 'Search sessions' }).fill('kingfishers');
  const results = page.getByRole('list', { name: 'Search results' }).getByRole('listitem');
  await expect(results.first()).toContainText('kingfishers');
  await expect(results.filter({ hasText: 'rivers' })).toHaveCount(0);
});
