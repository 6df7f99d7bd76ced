/**
 * The Trash in the window (docs/DESIGN.md#trash): a delete or an archive offers Undo; the
 * Trash view lists deleted sessions and restores or purges them; axe finds nothing in it.
 */
import type { Page } from '@playwright/test';
import type { ChatMessage } from '../../src/shared/types';
import { expectNoAxeViolations } from './axe';
import { expect, openLoom, sessionAction, sidebarRow, test, type LoomHarness } from './fixtures';

const CONVERSATION: ChatMessage[] = [
  { role: 'system', content: 'You are Loom.' },
  { role: 'user', content: '<user_input>\nHow do cormorants dry their wings?\n</user_input>' },
  { role: 'assistant', content: 'They spread them in the sun.' },
];

function seed(loom: LoomHarness, title: string) {
  return loom.store.create({ title, messages: CONVERSATION, model: 'gemma4', cwd: loom.projectDir });
}

const searchResults = (page: Page) => page.getByRole('list', { name: 'Search results' });
const undo = (page: Page) => page.getByRole('status').filter({ hasText: 'Undo' }).getByRole('button', { name: 'Undo' });

async function deleteFromSidebar(page: Page, title: string) {
  await sessionAction(page, title, 'Delete…');
  const dialog = page.getByRole('dialog', { name: 'Delete session?' });
  await expect(dialog).toContainText('It stays in the Trash for 30 days');
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(sidebarRow(page, title)).toHaveCount(0);
}

test('delete takes a session out of the list and search at once; Undo brings it back as it was', async ({ page, loom }) => {
  const meta = seed(loom, 'Cormorant notes');
  await openLoom(page, loom);
  await deleteFromSidebar(page, 'Cormorant notes');
  await page.getByRole('searchbox', { name: 'Search sessions' }).fill('cormorants');
  await expect(page.getByText('No session matches.')).toBeVisible();
  expect(loom.store.search('cormorants')).toEqual([]);

  const box = page.getByRole('searchbox', { name: 'Search sessions' });
  await undo(page).focus();
  await page.keyboard.press('Enter');
  await box.fill('');
  await expect(sidebarRow(page, 'Cormorant notes')).toBeVisible();
  await box.fill('cormorants');
  await expect(searchResults(page).getByRole('listitem').first()).toContainText('Cormorant notes');
  expect(loom.store.getMeta(meta.id)).toEqual(meta);
});

test('archive offers Undo, which unarchives', async ({ page, loom }) => {
  const meta = seed(loom, 'Heron notes');
  await openLoom(page, loom);
  await sessionAction(page, 'Heron notes', 'Archive');
  await expect(sidebarRow(page, 'Heron notes')).toHaveCount(0);
  expect(loom.store.getMeta(meta.id).archived).toBe(true);
  await undo(page).click();
  await expect(sidebarRow(page, 'Heron notes')).toBeVisible();
  expect(loom.store.getMeta(meta.id).archived).toBe(false);
});

test('the Trash lists deleted sessions with their dates, restores one and purges another after asking', async ({ page, loom }) => {
  const kept = seed(loom, 'Kept notes');
  const gone = seed(loom, 'Gone notes');
  await openLoom(page, loom);
  await deleteFromSidebar(page, 'Kept notes');
  await deleteFromSidebar(page, 'Gone notes');

  await page.getByRole('button', { name: 'Trash' }).click();
  const trash = page.getByRole('dialog', { name: 'Trash' });
  const rows = trash.getByRole('list', { name: 'Deleted sessions' }).getByRole('listitem');
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toContainText('Gone notes');
  await expect(rows.first()).toContainText(/Deleted .+; purged .+/);
  await expectNoAxeViolations(page, trash);

  await trash.getByRole('button', { name: 'Restore Kept notes' }).click();
  await expect(rows).toHaveCount(1);
  await expect(sidebarRow(page, 'Kept notes')).toBeVisible();
  expect(loom.store.getMeta(kept.id).title).toBe('Kept notes');

  await trash.getByRole('button', { name: 'Purge Gone notes' }).click();
  const confirm = page.getByRole('dialog', { name: 'Purge session?' });
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  expect(loom.store.isTrashed(gone.id)).toBe(true);
  await page.getByRole('dialog', { name: 'Trash' }).getByRole('button', { name: 'Purge Gone notes' }).click();
  await confirm.getByRole('button', { name: 'Purge' }).click();
  await expect(page.getByRole('dialog', { name: 'Trash' })).toContainText('The Trash is empty.');
  expect(loom.store.db.prepare('SELECT count(*) FROM sessions WHERE id = ?').pluck().get(gone.id)).toBe(0);
});
