/**
 * Session lifecycle from the sidebar: fork, archive/unarchive, rename, export (equal to
 * `loom --export`), import, delete with its confirmation, and tabs that come back after a
 * reload. The export formats, drop-to-import and drag-export: exchange.spec.ts.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { Page } from '@playwright/test';
import type { ChatMessage } from '../../src/shared/types';
import { nth } from '../support/elements';
import { expect, openLoom, sessionAction, sidebarRow, test, transcript, type LoomHarness } from './fixtures';

const CONVERSATION: ChatMessage[] = [
  { role: 'system', content: 'You are Loom.' },
  { role: 'user', content: '<user_input>\nHow do herons fish?\n</user_input>' },
  { role: 'assistant', content: 'Herons stand still and **strike** fast.' },
];

function seed(loom: LoomHarness, title: string, messages = CONVERSATION) {
  return loom.store.create({ title, messages, model: 'gemma4', cwd: loom.projectDir });
}

async function openFromSidebar(page: Page, title: string) {
  await sidebarRow(page, title)
    .getByRole('button', { name: new RegExp(title) })
    .first()
    .click();
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
}

const tabs = (page: Page) => page.getByRole('tablist', { name: 'Open sessions' }).getByRole('tab');

test('fork opens the fork in a new tab with the same transcript and keeps the original open', async ({ page, loom }) => {
  const original = seed(loom, 'Herons');
  await openLoom(page, loom);
  await openFromSidebar(page, 'Herons');
  await expect(transcript(page).getByRole('article', { name: 'Assistant' })).toContainText('Herons stand still');

  await sessionAction(page, 'Herons', 'Fork');
  await expect(tabs(page)).toHaveCount(2);
  await expect(tabs(page).nth(1)).toHaveAttribute('aria-selected', 'true');
  const forks = loom.store.list().filter((s) => s.parent_id === original.id);
  expect(forks).toHaveLength(1);
  await expect(transcript(page).getByRole('article', { name: 'You' })).toHaveText(/How do herons fish\?/);
  await expect(transcript(page).getByRole('article', { name: 'Assistant' }).locator('strong')).toHaveText('strike');
  expect(loom.store.getTranscript(nth(forks, 0).id)).toEqual(loom.store.getTranscript(original.id));

  // Opening a session that is already open focuses its tab instead of opening another.
  await tabs(page).nth(0).click();
  await openFromSidebar(page, 'Herons');
  await expect(tabs(page)).toHaveCount(2);
});

test('archive hides a session from the list; unarchive brings it back', async ({ page, loom }) => {
  seed(loom, 'Keep me');
  seed(loom, 'Old project');
  await openLoom(page, loom);
  await expect(sidebarRow(page, 'Old project')).toBeVisible();

  await sessionAction(page, 'Old project', 'Archive');
  await expect(sidebarRow(page, 'Old project')).toHaveCount(0);
  await expect(sidebarRow(page, 'Keep me')).toBeVisible();

  await page.getByRole('switch', { name: 'Show archived' }).check();
  await expect(sidebarRow(page, 'Old project')).toContainText('archived');
  await sessionAction(page, 'Old project', 'Unarchive');
  await page.getByRole('switch', { name: 'Show archived' }).uncheck();
  await expect(sidebarRow(page, 'Old project')).toBeVisible();
  await expect(sidebarRow(page, 'Old project')).not.toContainText('archived');
});

test('rename sets the title everywhere it is shown', async ({ page, loom }) => {
  const meta = seed(loom, 'Untitled draft');
  await openLoom(page, loom);
  await openFromSidebar(page, 'Untitled draft');
  await sessionAction(page, 'Untitled draft', 'Rename…');
  const dialog = page.getByRole('dialog', { name: 'Rename session' });
  await dialog.getByRole('textbox', { name: 'Title' }).fill('Heron field notes');
  await dialog.getByRole('button', { name: 'Rename' }).click();
  await expect(dialog).toBeHidden();
  await expect(sidebarRow(page, 'Heron field notes')).toBeVisible();
  await expect(page.getByRole('heading', { level: 1, name: 'Heron field notes' })).toBeVisible();
  await expect(tabs(page).first()).toHaveText('Heron field notes');
  expect(loom.store.getMeta(meta.id).title).toBe('Heron field notes');
});

test('the exported file equals `loom --export`', async ({ page, loom }) => {
  const meta = seed(loom, 'Export me');
  await openLoom(page, loom);

  const download = page.waitForEvent('download');
  await sessionAction(page, 'Export me', 'Export as JSON');
  const file = await download;
  expect(file.suggestedFilename()).toBe('Export me.loom');
  const exported = fs.readFileSync(await file.path(), 'utf8');

  const cli = execFileSync(process.execPath, ['bin/loom.js', '--data-dir', loom.dataDir, '--export', meta.id], { encoding: 'utf8' });
  expect(withoutTimestamp(exported)).toBe(withoutTimestamp(cli));
  expect(JSON.parse(exported).session.id).toBe(meta.id);
});

test('import adds the exported session as a new one and opens it', async ({ page, loom }) => {
  const meta = seed(loom, 'Travelling session');
  const text = await loom.store.exportSession(meta.id);
  await openLoom(page, loom);
  await page.getByLabel('Session export file to import').setInputFiles({ name: 'travel.json', mimeType: 'application/json', buffer: Buffer.from(text) });
  await expect(sidebarRow(page, 'Travelling session')).toHaveCount(2);
  await expect(tabs(page)).toHaveCount(1);
  await expect(transcript(page).getByRole('article', { name: 'Assistant' })).toContainText('Herons stand still');
});

test('delete asks first: Cancel and Escape change nothing, confirming deletes and closes the tab', async ({ page, loom }) => {
  const meta = seed(loom, 'Doomed session');
  await openLoom(page, loom);
  await openFromSidebar(page, 'Doomed session');
  await expect(tabs(page)).toHaveCount(1);

  await sessionAction(page, 'Doomed session', 'Delete…');
  const dialog = page.getByRole('dialog', { name: 'Delete session?' });
  await expect(dialog).toContainText('Doomed session');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();

  await sessionAction(page, 'Doomed session', 'Delete…');
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  expect(loom.store.getMeta(meta.id).title).toBe('Doomed session');
  await expect(sidebarRow(page, 'Doomed session')).toBeVisible();
  await expect(tabs(page)).toHaveCount(1);

  await sessionAction(page, 'Doomed session', 'Delete…');
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(sidebarRow(page, 'Doomed session')).toHaveCount(0);
  await expect(tabs(page)).toHaveCount(0);
  expect(() => loom.store.getMeta(meta.id)).toThrow(/No session/);
});

test('open tabs and the active one come back after a reload; shortcuts open, switch and close tabs', async ({ page, loom }) => {
  const first = seed(loom, 'First');
  const second = seed(loom, 'Second');
  await openLoom(page, loom);
  await openFromSidebar(page, 'First');
  await openFromSidebar(page, 'Second');
  await tabs(page).filter({ hasText: 'First' }).click();
  await expect(tabs(page).filter({ hasText: 'First' })).toHaveAttribute('aria-selected', 'true');

  // The tab list is saved in the settings a moment after it changes.
  await expect.poll(() => loom.mode.backend.handlers['settings.get']({})).toMatchObject({ openTabs: [first.id, second.id], activeTab: first.id });
  await page.reload();
  await expect(tabs(page)).toHaveText(['First', 'Second']);
  await expect(tabs(page).filter({ hasText: 'First' })).toHaveAttribute('aria-selected', 'true');

  await page.keyboard.press('Alt+BracketRight');
  await expect(tabs(page).filter({ hasText: 'Second' })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Alt+BracketLeft');
  await expect(tabs(page).filter({ hasText: 'First' })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Alt+KeyN');
  await expect(tabs(page)).toHaveCount(3);
  await page.keyboard.press('Alt+KeyW');
  await expect(tabs(page)).toHaveCount(2);
  await page.keyboard.press('Control+KeyK');
  await expect(page.getByRole('searchbox', { name: 'Search sessions' })).toBeFocused();
});

function withoutTimestamp(text: string): string {
  return text.replace(/"exported_at":\s*"[^"]*"/, '"exported_at":"…"');
}

test('a saved tab whose session was deleted elsewhere is dropped on the next start', async ({ page, loom }) => {
  const kept = seed(loom, 'Still here');
  const gone = seed(loom, 'Deleted from the terminal');
  await loom.mode.backend.handlers['settings.set']({ openTabs: [gone.id, kept.id], activeTab: gone.id });
  loom.store.delete(gone.id);
  await openLoom(page, loom);
  await expect(tabs(page)).toHaveText(['Still here']);
  await expect(tabs(page).first()).toHaveAttribute('aria-selected', 'true');
});
