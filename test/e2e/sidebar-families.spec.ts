/**
 * Branches you can tell apart (docs/DESIGN.md#the-sidebar): a conversation and its forks
 * fold into one sidebar row with a count, expand in place under it (a click, or
 * ArrowRight and ArrowLeft as in a tree), and each branch opens its session; search hits
 * stay one per session.
 */
import type { Page } from '@playwright/test';
import type { ChatMessage } from '../../src/shared/types';
import { expectNoAxeViolations } from './axe';
import { expect, openLoom, sessionAction, test, type LoomHarness } from './fixtures';

const sidebar = (page: Page) => page.getByRole('complementary', { name: 'Sessions' });
const sessionList = (page: Page) => page.getByRole('list', { name: 'Session list' });
const rows = (page: Page) => sessionList(page).getByRole('listitem');
const selectedTab = (page: Page) => page.getByRole('tablist', { name: 'Open sessions' }).getByRole('tab', { selected: true });

const HERONS: ChatMessage[] = [
  { role: 'system', content: 'You are Loom.' },
  { role: 'user', content: '<user_input>\nHow do herons fish?\n</user_input>' },
  { role: 'assistant', content: 'They stand still and strike.' },
];

/** Titles of the sessions the store lists whose title starts so, newest first. */
function titlesOf(loom: LoomHarness, start: string): string[] {
  return loom.store.list().flatMap((s) => (s.title?.startsWith(start) ? [s.title] : []));
}

test('a conversation forked twice is one row with a count; it expands in place, and a branch opens its session', async ({ page, loom }) => {
  loom.store.create({ title: 'Heron notes', cwd: loom.projectDir, messages: HERONS });
  loom.store.create({ title: 'Otter notes', cwd: loom.projectDir, messages: HERONS });
  await openLoom(page, loom);
  await expect(rows(page)).toHaveCount(2);

  await sessionAction(page, 'Heron notes', 'Fork');
  await expect.poll(() => titlesOf(loom, 'Heron notes').length).toBe(2);
  await sessionAction(page, 'Heron notes', 'Fork');
  await expect.poll(() => titlesOf(loom, 'Heron notes').length).toBe(3);
  const [newest = '', middle = '', root = ''] = titlesOf(loom, 'Heron notes');
  expect(root).toBe('Heron notes');

  // One row for the family, placed first (its newest member is the newest), showing that member.
  await expect(rows(page)).toHaveCount(2);
  const family = rows(page).first();
  await expect(family.locator('.session-title')).toHaveText(newest);
  const toggle = family.getByRole('button', { name: `3 branches of ${newest}` });
  await expect(toggle).toHaveText('▸ 3 branches');
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expectNoAxeViolations(page, sidebar(page));

  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  // In place: right under the row, before the other conversation.
  await expect(sessionList(page).locator('.session-title')).toHaveText([newest, middle, root, 'Otter notes']);
  await expectNoAxeViolations(page, sidebar(page));

  // The root (the branches share a title here: both forked at the end).
  await rows(page)
    .filter({ has: page.locator('.session-title', { hasText: /^Heron notes$/ }) })
    .locator('.session-open')
    .click();
  await expect(selectedTab(page)).toHaveText(/^Heron notes(?! ·)/);
  await expect(page.getByRole('log', { name: 'Transcript' }).getByText('They stand still and strike.')).toBeVisible();

  await toggle.click();
  await expect(sessionList(page).locator('.session-title')).toHaveText([newest, 'Otter notes']);
});

test('the keyboard expands a family with ArrowRight, steps into it, and folds it with ArrowLeft', async ({ page, loom }) => {
  const root = loom.store.create({ title: 'Heron notes', cwd: loom.projectDir, messages: HERONS });
  const fork = loom.store.fork(root.id, 2);
  loom.store.rename(fork.id, 'Heron notes, short');
  loom.store.appendMessage(fork.id, { role: 'user', content: '<user_input>\nAnd egrets?\n</user_input>' });
  loom.store.create({ title: 'Otter notes', cwd: loom.projectDir, messages: HERONS });
  await openLoom(page, loom);
  const open = (title: string) => sessionList(page).getByRole('button', { name: new RegExp(`^${title}`) });
  const rootRow = sessionList(page).getByRole('button', { name: /^Heron notes(?!,)/ });
  const toggle = sessionList(page).getByRole('button', { name: '2 branches of Heron notes, short' });

  await expect(sessionList(page).locator('.session-title')).toHaveText(['Otter notes', 'Heron notes, short']);
  await open('Otter notes').focus();
  await page.keyboard.press('ArrowDown');
  await expect(open('Heron notes, short')).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await expect(sessionList(page).locator('.session-title')).toHaveText(['Otter notes', 'Heron notes, short', 'Heron notes']);
  await expect(open('Heron notes, short')).toBeFocused();

  await page.keyboard.press('ArrowRight');
  await expect(rootRow).toBeFocused();
  // Still one Tab stop: the list's row that has the focus.
  await expect(sessionList(page).locator('[tabindex="0"]')).toHaveCount(1);
  await page.keyboard.press('ArrowLeft');
  await expect(open('Heron notes, short')).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(sessionList(page).locator('.session-title')).toHaveText(['Otter notes', 'Heron notes, short']);

  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  await expect(rootRow).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(selectedTab(page)).toHaveText(/^Heron notes(?!,)/);
});

test('search hits stay one per session: a family is not folded among them', async ({ page, loom }) => {
  const root = loom.store.create({ title: 'Heron notes', cwd: loom.projectDir, messages: HERONS });
  loom.store.rename(loom.store.fork(root.id).id, 'Heron notes, again');
  loom.store.updateSearchIndex();
  await openLoom(page, loom);
  await expect(rows(page)).toHaveCount(1);
  await page.getByRole('searchbox', { name: 'Search sessions' }).fill('herons');
  const hits = page.getByRole('list', { name: 'Search results' });
  await expect(hits.locator('.session-title')).toHaveCount(2);
  await expect(hits.locator('.session-title', { hasText: /^Heron notes$/ })).toHaveCount(1);
  await expect(hits.locator('.session-title', { hasText: 'Heron notes, again' })).toHaveCount(1);
  await expect(hits.getByRole('button', { name: /branches of/ })).toHaveCount(0);
});
