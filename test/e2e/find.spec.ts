/**
 * Finding words (docs/DESIGN.md#search): a search hit opens a long session at its message
 * every time, its title matching too, "quoted words" are a phrase and the snippet shows the match, and find in
 * session (Ctrl+F) goes through every match of the whole transcript, pages not yet fetched
 * included.
 */
import type { Page } from '@playwright/test';
import type { ChatMessage } from '../../src/shared/types';
import { SUMMARY, expect, openLoom, send, test, transcript } from './fixtures';

const searchResults = (page: Page) => page.getByRole('list', { name: 'Search results' });

function conversation(length: number, special: Record<number, string> = {}): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: 'You are Loom.' }];
  for (let i = 1; i < length; i++) {
    // Some replies long, as a real session's are: rows far from the list's estimated height.
    const text =
      special[i] ??
      (i % 6 === 2
        ? `Message number ${i} about rivers.\n\n${'A longer paragraph about estuaries and deltas. '.repeat(40)}`
        : `Message number ${i} about rivers`);
    messages.push(i % 2 ? { role: 'user', content: `<user_input>\n${text}\n</user_input>` } : { role: 'assistant', content: text });
  }
  return messages;
}

test('a search hit far from the bottom of a 2,000-message session opens at its message every time', async ({ page, loom }) => {
  loom.store.create({ title: 'Long chat', cwd: loom.projectDir, messages: conversation(2000, { 301: 'Where do narwhals live in winter?' }) });
  // Pages answered late and a slow CPU, as on a busy machine: the scroll must not depend on what comes first.
  let delay = 0;
  await page.route('**/api/sessions.transcript', async (route) => {
    delay = (delay + 170) % 400;
    await new Promise((resolve) => setTimeout(resolve, delay));
    await route.continue();
  });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  await openLoom(page, loom);
  await page.getByRole('searchbox', { name: 'Search sessions' }).fill('narwhals');
  const open = searchResults(page).getByRole('button', { name: /^Long chat/ });
  for (let i = 0; i < 6; i++) {
    await open.click();
    const found = transcript(page).locator('.row.search-found');
    await expect(found).toContainText('Where do narwhals live in winter?');
    await expect(found).toBeInViewport();
    await expect(transcript(page).getByText('Message number 1999 about rivers')).toHaveCount(0);
    // Every other time from a closed tab, else with the tab open (scrolled to the bottom).
    if (i % 2) await page.keyboard.press('Alt+W');
    else await transcript(page).evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
  }
});

test('a hit whose session title matches too opens at the matching message, not at the bottom', async ({ page, loom }) => {
  // As imported sessions are titled: by their first prompt, or by the summary Claude Code wrote.
  const answer = `Where do narwhals live in winter? Under the pack ice.\n\n${'A longer paragraph about estuaries and deltas. '.repeat(20)}`;
  loom.store.create({ title: 'Narwhals in winter', cwd: loom.projectDir, messages: conversation(2000, { 301: answer }) });
  // Among many others, so that the title's rare words outrank the message's (bm25 weighs by rarity).
  for (let i = 0; i < 231; i++) loom.store.create({ title: `Chat ${i}`, cwd: loom.projectDir, messages: conversation(3) });
  await openLoom(page, loom);
  await page.getByRole('searchbox', { name: 'Search sessions' }).fill('narwhals winter');
  const hit = searchResults(page).getByRole('listitem').filter({ hasText: 'Narwhals in winter' });
  await hit.getByRole('button', { name: /^Narwhals in winter/ }).click();
  const found = transcript(page).locator('.row.search-found');
  await expect(found).toContainText('Where do narwhals live in winter?');
  await expect(found).toBeInViewport();
  await expect(transcript(page).getByText('Message number 1999 about rivers')).toHaveCount(0);
});

test('sidebar search: "quoted words" are a phrase, and a match after 1,000 characters shows in the snippet', async ({ page, loom }) => {
  const filler = 'internationalisation/considerations.txt '.repeat(30);
  loom.store.create({ title: 'Together', cwd: loom.projectDir, messages: conversation(3, { 1: `${filler}The blue heron stood still. ${filler}` }) });
  loom.store.create({ title: 'Apart', cwd: loom.projectDir, messages: conversation(3, { 1: 'A heron, and later something blue.' }) });
  await openLoom(page, loom);
  const box = page.getByRole('searchbox', { name: 'Search sessions' });
  await box.fill('blue heron');
  await expect(searchResults(page).getByRole('listitem')).toHaveCount(2);
  await box.fill('"blue heron"');
  await expect(searchResults(page).getByRole('listitem')).toHaveCount(1);
  const hit = searchResults(page).getByRole('listitem').filter({ hasText: 'Together' });
  await expect(hit.locator('mark')).toHaveText(['blue heron']);
  // Shown, not cut off by the snippet's two lines.
  const snippet = (await hit.locator('.snippet').boundingBox())!;
  const mark = (await hit.locator('mark').boundingBox())!;
  expect(mark.y + mark.height).toBeLessThanOrEqual(snippet.y + snippet.height + 1);
  expect(mark.x + mark.width).toBeLessThanOrEqual(snippet.x + snippet.width + 1);
});

/** The text of each range of a find highlight ('find-match' or 'find-current'). */
function highlighted(page: Page, name: string): Promise<string[]> {
  // A string: the tests' TypeScript has no DOM types.
  return page.evaluate<string[]>(`[...(CSS.highlights.get(${JSON.stringify(name)}) ?? [])].map((range) => range.toString())`);
}

test('Ctrl+F finds in the whole transcript of a long fork, steps through the matches, and Escape gives the focus back', async ({ page, loom }) => {
  const parent = loom.store.create({
    title: 'Birds',
    cwd: loom.projectDir,
    messages: conversation(3000, { 101: 'A Kingfisher by the river.', 1502: 'The blue kingfisher dives; another kingfisher waits.' }),
  });
  const fork = loom.store.fork(parent.id, 2800);
  loom.store.rename(fork.id, 'Birds, forked');
  loom.store.appendMessage(fork.id, { role: 'user', content: '<user_input>\nOne more kingfisher, in the fork.\n</user_input>' });
  await openLoom(page, loom);
  await page.getByRole('button', { name: /^Birds, forked/ }).click();
  await expect(transcript(page).getByText('One more kingfisher, in the fork.')).toBeVisible();
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.focus();

  await page.keyboard.press('Control+f');
  const box = page.getByRole('searchbox', { name: 'Find in session' });
  await expect(box).toBeFocused();
  await box.fill('KINGFISHER');
  const bar = page.getByRole('search', { name: 'Find in session' });
  const status = bar.getByRole('status');
  const row = (text: string) => transcript(page).locator('.row').filter({ hasText: text });
  await expect(status).toHaveText('1 of 3');
  await expect(row('A Kingfisher by the river.')).toBeInViewport();
  await expect.poll(() => highlighted(page, 'find-current')).toEqual(['Kingfisher']);

  await box.press('Enter');
  await expect(status).toHaveText('2 of 3');
  await expect(row('The blue kingfisher dives')).toBeInViewport();
  await expect.poll(() => highlighted(page, 'find-current')).toEqual(['kingfisher', 'kingfisher']);
  await bar.getByRole('button', { name: 'Next match' }).click();
  await expect(status).toHaveText('3 of 3');
  await expect(row('One more kingfisher, in the fork.')).toBeInViewport();
  await box.press('Enter');
  await expect(status).toHaveText('1 of 3');
  await box.press('Shift+Enter');
  await expect(status).toHaveText('3 of 3');
  await bar.getByRole('button', { name: 'Previous match' }).click();
  await expect(status).toHaveText('2 of 3');

  // A phrase, and every word required.
  await box.fill('"blue kingfisher"');
  await expect(status).toHaveText('1 of 1');
  await expect.poll(() => highlighted(page, 'find-current')).toEqual(['blue kingfisher']);
  await box.fill('kingfisher river');
  await expect(status).toHaveText('1 of 1');
  await box.fill('kingfisher "blue heron"');
  await expect(status).toHaveText('No matches');

  await box.press('Escape');
  await expect(bar).toHaveCount(0);
  await expect(composer).toBeFocused();
  expect(await highlighted(page, 'find-match')).toEqual([]);

  // Left at the last message, the list follows a new turn again.
  await page.keyboard.press('Control+f');
  await box.fill('"in the fork"');
  await expect(status).toHaveText('1 of 1');
  await box.press('Escape');
  // The session is far over the model's window: the turn compacts first.
  loom.model.enqueue(SUMMARY('Birds by the river.'), { text: 'Herons too, now and then.' });
  await send(page, 'And herons?');
  await expect(transcript(page).getByRole('article', { name: 'You' }).filter({ hasText: 'And herons?' })).toBeInViewport();
});

test('the find bar counts in the messages a turn saves while it is open, staying on its match', async ({ page, loom }) => {
  loom.store.create({ title: 'Herons', cwd: loom.projectDir, messages: conversation(40, { 5: 'A grey heron at the weir.' }) });
  await openLoom(page, loom);
  await page.getByRole('button', { name: /^Herons/ }).click();
  await page.keyboard.press('Control+f');
  const box = page.getByRole('searchbox', { name: 'Find in session' });
  await box.fill('heron');
  const status = page.getByRole('search', { name: 'Find in session' }).getByRole('status');
  await expect(status).toHaveText('1 of 1');
  const first = transcript(page).locator('.row').filter({ hasText: 'A grey heron at the weir.' });
  await expect(first).toBeInViewport();

  loom.model.enqueue({ text: 'Another heron flew over the reeds.' });
  await send(page, 'Any more birds?');
  await expect(status).toHaveText('1 of 2');
  // Still on the first match; the new one is highlighted as a match, and Next goes to it.
  await expect.poll(() => highlighted(page, 'find-current')).toEqual(['heron']);
  await expect(first).toBeInViewport();
  await box.press('Enter');
  await expect(status).toHaveText('2 of 2');
  await expect(transcript(page).locator('.row').filter({ hasText: 'Another heron flew over the reeds.' })).toBeInViewport();
});
