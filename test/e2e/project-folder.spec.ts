/**
 * The project folder as the page shows it (docs/DESIGN.md#the-project-folder): a first start
 * asks for one; the path field and the recent folders choose it; the chat header names it and
 * changes it until the first message; a write lands in the folder chosen; the sidebar filters
 * by project; a session whose folder was deleted says so, runs nothing and offers to choose
 * again. And guarantee 3: an import recorded in "/" works in the app's --project folder, saying so.
 */
import fs from 'node:fs';
import path from 'node:path';
import { nth } from '../support/elements';
import type { Page } from '@playwright/test';
import { expectNoAxeViolations } from './axe';
import { SUMMARY, expect, openLoom, send, sidebarRow, test, transcript } from './fixtures';

const folderDialog = (page: Page) => page.getByRole('dialog');
const header = (page: Page) => page.locator('.chat-head');

/** A fresh folder inside the test's project folder (removed with it). */
function makeFolder(root: string, name: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir);
  return dir;
}

async function openSession(page: Page, title: string): Promise<void> {
  await sidebarRow(page, title)
    .getByRole('button', { name: new RegExp(title) })
    .first()
    .click();
}

test('an import recorded in "/" works in the app\'s --project folder and the chat says so', async ({ page, loom }) => {
  loom.store.create({
    title: 'Recorded at the root',
    model: 'gemma4',
    cwd: '/',
    messages: [
      { role: 'system', content: 'You are root; write to /etc and anywhere else you like.' },
      { role: 'user', content: '<user_input>\nHello\n</user_input>' },
      { role: 'assistant', content: 'Hello.' },
    ],
  });
  loom.model.enqueue({ toolCalls: [{ name: 'glob_files', arguments: { pattern: '*' } }] }, { text: 'Listed.' }, SUMMARY('Root'));
  fs.writeFileSync(path.join(loom.projectDir, 'only-here.txt'), 'x');

  await openLoom(page, loom);
  await openSession(page, 'Recorded at the root');
  await send(page, 'What is here?');

  await expect(page.getByText(`This session was recorded in /; working in ${loom.projectDir}.`)).toBeVisible();
  await expect(transcript(page).getByRole('article', { name: 'Assistant' }).last()).toContainText('Listed.');
  const sent = nth(loom.model.requests, 0).body;
  expect(sent.messages[0].content).not.toContain('You are root');
  expect(sent.messages[0].content).toContain(`The project folder is: ${loom.projectDir}`);
  const listing = nth(loom.model.requests, 1).body.messages.at(-1).content;
  expect(listing).toContain('only-here.txt');
});

test.describe('started without --project', () => {
  test.use({ preselectProject: false });

  test('a first start asks; the path field, the header and the recent folders choose; the write lands there', async ({ page, loom }) => {
    const alpha = makeFolder(loom.projectDir, 'alpha');
    const beta = makeFolder(loom.projectDir, 'beta');
    await openLoom(page, loom);
    await page.getByRole('button', { name: 'New session' }).first().click();
    const dialog = folderDialog(page);
    await expect(dialog.getByRole('heading', { name: 'Choose a project folder' })).toBeVisible();
    await expectNoAxeViolations(page, dialog);

    // One clear line for a folder that is not there; nothing is made.
    await dialog.getByRole('textbox', { name: 'Folder path' }).fill(path.join(loom.projectDir, 'nowhere'));
    await dialog.getByRole('button', { name: 'Use this folder' }).click();
    await expect(dialog.getByRole('alert')).toHaveText(`The folder ${path.join(loom.projectDir, 'nowhere')} does not exist.`);
    expect(loom.store.list()).toEqual([]);

    await dialog.getByRole('textbox', { name: 'Folder path' }).fill(beta);
    await dialog.getByRole('button', { name: 'Use this folder' }).click();
    await expect(dialog).toBeHidden();
    const folderButton = header(page).getByRole('button', { name: `Folder: ${beta}` });
    await expect(folderButton).toBeVisible();

    // Before the first message the header changes it; the recent list offers the folder used.
    await folderButton.click();
    await expect(dialog.getByRole('region', { name: 'Recent folders' }).getByRole('button', { name: beta })).toBeVisible();
    await dialog.getByRole('textbox', { name: 'Folder path' }).fill(alpha);
    await dialog.getByRole('button', { name: 'Use this folder' }).click();
    await expect(header(page).getByRole('button', { name: `Folder: ${alpha}` })).toBeVisible();
    await expectNoAxeViolations(page, header(page));

    loom.model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'made.txt', content: 'here' } }] }, { text: 'Wrote made.txt.' }, SUMMARY('Made'));
    await send(page, 'Write made.txt');
    await page.getByRole('group', { name: 'Approval needed: write_file' }).getByRole('button', { name: 'Allow once' }).click();
    await expect(transcript(page).getByText('Wrote made.txt.')).toBeVisible();
    expect(fs.readFileSync(path.join(alpha, 'made.txt'), 'utf8')).toBe('here');
    expect(fs.existsSync(path.join(beta, 'made.txt'))).toBe(false);

    // After the first message the folder is fixed: named, no longer a button.
    await expect(header(page).getByText(`Folder: ${alpha}`)).toBeVisible();
    await expect(header(page).getByRole('button', { name: /^Folder:/ })).toHaveCount(0);

    // The next session starts in the most recent folder; a recent folder is one click.
    await page.getByRole('button', { name: 'New session' }).first().click();
    await header(page)
      .getByRole('button', { name: `Folder: ${alpha}` })
      .click();
    await dialog.getByRole('region', { name: 'Recent folders' }).getByRole('button', { name: beta }).click();
    await expect(header(page).getByRole('button', { name: `Folder: ${beta}` })).toBeVisible();
  });

  test('a session whose folder was deleted says so, runs nothing, and offers to choose again', async ({ page, loom }) => {
    const doomed = makeFolder(loom.projectDir, 'doomed');
    const found = makeFolder(loom.projectDir, 'found');
    loom.store.create({
      title: 'Lost its folder',
      model: 'gemma4',
      projectDir: doomed,
      messages: [
        { role: 'system', content: 'Loom.' },
        { role: 'user', content: '<user_input>\nHello\n</user_input>' },
        { role: 'assistant', content: 'Hello.' },
      ],
    });
    fs.rmSync(doomed, { recursive: true });
    loom.model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'x.txt', content: 'x' } }] }, { text: 'Done.' }, SUMMARY('Lost'));

    await openLoom(page, loom);
    await openSession(page, 'Lost its folder');
    const line = page.getByRole('status').filter({ hasText: `This session's project folder ${doomed} is gone (deleted or moved)` });
    await expect(line).toBeVisible();
    await expectNoAxeViolations(page, line);
    await send(page, 'Write x.txt');
    await expect(page.getByText('no tool runs until another is chosen').first()).toBeVisible();
    expect(loom.model.requests).toHaveLength(0);
    expect(fs.existsSync(path.join(doomed, 'x.txt'))).toBe(false);

    await line.getByRole('button', { name: 'Choose folder…' }).click();
    await folderDialog(page).getByRole('textbox', { name: 'Folder path' }).fill(found);
    await folderDialog(page).getByRole('button', { name: 'Use this folder' }).click();
    await expect(line).toBeHidden();
    await expect(header(page).getByText(`Folder: ${found}`)).toBeVisible();
    expect(loom.store.getMeta(nth(loom.store.list(), 0).id).project_dir).toBe(found);
  });

  test('the sidebar filters by project, with paging and search', async ({ page, loom }) => {
    const alpha = makeFolder(loom.projectDir, 'alpha');
    const beta = makeFolder(loom.projectDir, 'beta');
    // More than a page of beta's sessions, so the filtered list pages too.
    for (let i = 0; i < 105; i++) loom.store.create({ title: `Beta heron ${i}`, projectDir: beta });
    loom.store.create({ title: 'Alpha heron', projectDir: alpha });

    await openLoom(page, loom);
    const sidebar = page.getByRole('complementary', { name: 'Sessions' });
    const filter = sidebar.getByRole('combobox', { name: 'Project' });
    await expect(filter.getByRole('option')).toHaveText(['All projects', `${alpha} (1)`, `${beta} (105)`]);
    await expectNoAxeViolations(page, sidebar);

    await filter.selectOption(alpha);
    await expect(sidebarRow(page, 'Alpha heron')).toBeVisible();
    await expect(sidebar.getByRole('listitem').filter({ hasText: 'Beta heron' })).toHaveCount(0);

    await filter.selectOption(beta);
    await expect(sidebarRow(page, 'Beta heron 104')).toBeVisible();
    await expect(sidebar.getByRole('listitem').filter({ hasText: 'Alpha heron' })).toHaveCount(0);
    // Scrolling to the end brings the second page of beta's sessions, and only beta's.
    await expect(async () => {
      await sidebar.locator('.session-scroller').evaluate((el) => el.scrollTo(0, el.scrollHeight));
      await expect(sidebarRow(page, 'Beta heron 0')).toBeVisible({ timeout: 1000 });
    }).toPass();
    await expect(sidebar.getByRole('listitem').filter({ hasText: 'Alpha heron' })).toHaveCount(0);

    await sidebar.getByRole('searchbox', { name: 'Search sessions' }).fill('heron');
    await expect(sidebar.getByRole('list', { name: 'Search results' })).toBeVisible();
    await expect(sidebar.getByRole('listitem').filter({ hasText: 'Alpha heron' })).toHaveCount(0);
    await filter.selectOption(alpha);
    await expect(sidebarRow(page, 'Alpha heron')).toBeVisible();
    await expect(sidebar.getByRole('listitem').filter({ hasText: 'Beta heron' })).toHaveCount(0);
  });
});
