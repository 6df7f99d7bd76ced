/**
 * Files the agent wrote or edited can be put back: the chat header lists them ("Changed
 * files (N)") with Revert all / Keep, closing the tab offers the same choice, and the
 * window names secret-looking environment variables once at start.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { SUMMARY, expect, newSession, openLoom, restartLoom, send, sidebarRow, test, transcript } from './fixtures';

/** Allows the approval the turn waits on, after checking it is about `file`. */
async function allow(page: Page, tool: string, file: string): Promise<void> {
  const approval = page.getByRole('group', { name: `Approval needed: ${tool}` });
  await expect(approval).toContainText(file);
  await approval.getByRole('button', { name: 'Allow once' }).click();
}

function changedFilesButton(page: Page) {
  return page.getByRole('region', { name: /^Chat: / }).getByRole('button', { name: /^Changed files \(\d+\)$/ });
}

test('files written and edited after approval are listed in the header, and Revert all puts them back', async ({ page, loom }) => {
  const notes = path.join(loom.projectDir, 'notes.txt');
  const created = path.join(loom.projectDir, 'created.txt');
  fs.writeFileSync(notes, 'the old text\n');
  loom.model.enqueue(
    { toolCalls: [{ name: 'write_file', arguments: { path: 'created.txt', content: 'brand new' } }] },
    { text: 'Created it.' },
    SUMMARY('Editing files'),
    { toolCalls: [{ name: 'edit_file', arguments: { path: 'notes.txt', old_string: 'old', new_string: 'new' } }] },
    { text: 'Edited it.' },
  );
  await openLoom(page, loom);
  await newSession(page);
  await expect(changedFilesButton(page)).toBeHidden();

  await send(page, 'Create created.txt');
  await allow(page, 'write_file', 'created.txt');
  await expect(transcript(page).getByText('Created it.')).toBeVisible();
  await expect(changedFilesButton(page)).toHaveText('Changed files (1)');
  expect(fs.readFileSync(created, 'utf8')).toBe('brand new');

  await send(page, 'Edit notes.txt');
  await allow(page, 'edit_file', 'notes.txt');
  await expect(transcript(page).getByText('Edited it.')).toBeVisible();
  await expect(changedFilesButton(page)).toHaveText('Changed files (2)');
  expect(fs.readFileSync(notes, 'utf8')).toBe('the new text\n');

  await changedFilesButton(page).click();
  const dialog = page.getByRole('dialog', { name: 'Changed files' });
  await expect(dialog.getByRole('list', { name: 'Changed files' }).getByRole('listitem')).toHaveText(['created.txt', 'notes.txt']);
  await expect(dialog.getByRole('button', { name: 'Keep' })).toBeFocused();
  await dialog.getByRole('button', { name: 'Revert all' }).click();
  // The confirmation step: Cancel changes nothing.
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  expect(fs.existsSync(created)).toBe(true);
  await dialog.getByRole('button', { name: 'Revert all' }).click();
  await dialog.getByRole('button', { name: 'Yes, revert all' }).click();

  await expect(dialog).toBeHidden();
  await expect(changedFilesButton(page)).toBeHidden();
  await expect(page.getByRole('status').filter({ hasText: 'Reverted 2 files' })).toBeVisible();
  expect(fs.existsSync(created)).toBe(false);
  expect(fs.readFileSync(notes, 'utf8')).toBe('the old text\n');
});

test('closing a tab whose session changed files offers the revert; Cancel and Escape keep the tab, Keep closes it keeping the files', async ({
  page,
  loom,
}) => {
  const kept = path.join(loom.projectDir, 'kept.txt');
  loom.model.enqueue(
    { toolCalls: [{ name: 'write_file', arguments: { path: 'kept.txt', content: 'keep me' } }] },
    { text: 'Wrote kept.txt.' },
    SUMMARY('Keeping a file'),
  );
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Write kept.txt');
  await allow(page, 'write_file', 'kept.txt');
  await expect(changedFilesButton(page)).toHaveText('Changed files (1)');

  const tabs = page.getByRole('tablist', { name: 'Open sessions' });
  const tab = tabs.getByRole('tab');
  const closeTab = () => tabs.getByTitle(/^Close tab /).click();
  const dialog = page.getByRole('dialog', { name: 'Changed files' });

  // Cancel and Escape change nothing: the tab stays open and the file as it is.
  await closeTab();
  await expect(dialog).toContainText('before its tab closes');
  await expect(dialog.getByRole('listitem')).toHaveText(['kept.txt']);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(tab).toHaveCount(1);
  // From the keyboard: Delete on the tab asks, Escape keeps it and gives it the focus back.
  await tab.focus();
  await page.keyboard.press('Delete');
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(tab).toHaveCount(1);
  await expect(tab).toBeFocused();
  await expect(changedFilesButton(page)).toHaveText('Changed files (1)');
  expect(fs.readFileSync(kept, 'utf8')).toBe('keep me');

  // Keep keeps the files and closes the tab.
  await closeTab();
  await dialog.getByRole('button', { name: 'Keep' }).click();
  await expect(tab).toHaveCount(0);
  expect(fs.readFileSync(kept, 'utf8')).toBe('keep me');
});

test('after a server restart the session still lists its changed files, and Revert all puts them back', async ({ page, loom }) => {
  const notes = path.join(loom.projectDir, 'notes.txt');
  const created = path.join(loom.projectDir, 'created.txt');
  fs.writeFileSync(notes, 'the old text\n');
  loom.model.enqueue(
    { toolCalls: [{ name: 'write_file', arguments: { path: 'created.txt', content: 'brand new' } }] },
    { toolCalls: [{ name: 'edit_file', arguments: { path: 'notes.txt', old_string: 'old', new_string: 'new' } }] },
    { text: 'Done both.' },
    SUMMARY('Changing two files'),
  );
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Create created.txt and edit notes.txt');
  await allow(page, 'write_file', 'created.txt');
  await allow(page, 'edit_file', 'notes.txt');
  await expect(transcript(page).getByText('Done both.')).toBeVisible();
  await expect(changedFilesButton(page)).toHaveText('Changed files (2)');

  const restarted = await restartLoom(loom);
  try {
    await page.goto(restarted.url);
    await sidebarRow(page, 'Changing two files')
      .getByRole('button', { name: /Changing two files/ })
      .first()
      .click();
    await expect(changedFilesButton(page)).toHaveText('Changed files (2)');
    await changedFilesButton(page).click();
    const dialog = page.getByRole('dialog', { name: 'Changed files' });
    await expect(dialog.getByRole('list', { name: 'Changed files' }).getByRole('listitem')).toHaveText(['created.txt', 'notes.txt']);
    await dialog.getByRole('button', { name: 'Revert all' }).click();
    await dialog.getByRole('button', { name: 'Yes, revert all' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Reverted 2 files' })).toBeVisible();
    await expect(changedFilesButton(page)).toBeHidden();
    expect(fs.existsSync(created)).toBe(false);
    expect(fs.readFileSync(notes, 'utf8')).toBe('the old text\n');
  } finally {
    await restarted.close();
  }
});

test('a tab whose session changed nothing closes without asking', async ({ page, loom }) => {
  await openLoom(page, loom);
  await newSession(page);
  const tabs = page.getByRole('tablist', { name: 'Open sessions' });
  await tabs.getByTitle(/^Close tab /).click();
  await expect(tabs.getByRole('tab')).toHaveCount(0);
  await expect(page.getByRole('dialog')).toHaveCount(0);
});

test('secret-looking environment variables are named once at start, never their values, and the notice can be dismissed', async ({ page, loom }) => {
  const name = 'LOOM_E2E_SERVICE_TOKEN';
  process.env[name] = 'e2e-secret-value-never-shown';
  try {
    await openLoom(page, loom);
    const notice = page.getByRole('status', { name: 'Secret environment variables' });
    await expect(notice).toContainText(name);
    await expect(notice).toContainText('Tools do not get these secret-looking environment variables');
    await expect(page.locator('body')).not.toContainText('e2e-secret-value-never-shown');
    // Non-blocking: the window works with the notice shown.
    await newSession(page);
    await notice.getByRole('button', { name: 'Dismiss the notice about secret variables' }).click();
    await expect(notice).toBeHidden();
  } finally {
    delete process.env[name];
  }
});
