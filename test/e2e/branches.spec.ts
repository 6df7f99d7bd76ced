/**
 * Branches in the window (docs/DESIGN.md#branches-in-the-ui): Regenerate makes a sibling reply and
 * the "2 / 2" switcher moves between them in place; Edit message makes a new branch with
 * the old one reachable; Fork from here opens the conversation up to a message in a tab
 * right after the current one; the info dialog links the parent and shows the family.
 */
import type { Page } from '@playwright/test';
import { LISTING_SUMMARY_PROMPT } from '../../src/core/agent/listing-summary';
import type { ChatMessage } from '../../src/shared/types';
import { nth } from '../support/elements';
import { SUMMARY, expandFamilies, expect, newSession, openLoom, send, sidebarRow, test, transcript, type LoomHarness } from './fixtures';

function article(page: Page, name: 'You' | 'Assistant', text: string) {
  return transcript(page).getByRole('article', { name, exact: true }).filter({ hasText: text });
}

async function openTabs(loom: LoomHarness): Promise<string[]> {
  return (await loom.mode.backend.handlers['settings.get']({})).openTabs;
}

const lastUserMessage = (body: any) => body.messages.filter((m: any) => m.role === 'user').at(-1);
/** The last chat request (listing-summary requests left out). */
const lastChatRequest = (loom: LoomHarness) => loom.model.requests.filter((r) => r.body.messages[0].content !== LISTING_SUMMARY_PROMPT).at(-1)!.body;

test('Regenerate makes a sibling reply, and the switcher shows each in place', async ({ page, loom }) => {
  loom.model.enqueue({ text: 'Herons stand still and strike.' }, SUMMARY('How herons fish'), { text: 'Herons wait, then spear a fish.' });
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'How do herons fish?');
  const first = article(page, 'Assistant', 'Herons stand still and strike.');
  await expect(first).toBeVisible();
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  const original = nth(loom.store.list(), 0);

  await first.getByRole('button', { name: 'Regenerate' }).click();
  const second = article(page, 'Assistant', 'Herons wait, then spear a fish.');
  await expect(second).toBeVisible();
  await expect(second.getByRole('group', { name: 'Version 2 of 2' })).toContainText('2 / 2');
  await expect(first).toHaveCount(0);

  // The request asked again for the same user message, once, and ended with it.
  const request = lastChatRequest(loom);
  expect(request.messages.map((m: any) => m.role)).toEqual(['system', 'user']);
  expect(request.messages.at(-1).content).toContain('How do herons fish?');

  // The same tab now shows the branch; the original is one click away.
  const tabs = page.getByRole('tablist', { name: 'Open sessions' }).getByRole('tab');
  await expect(tabs).toHaveCount(1);
  const branch = loom.store.list().find((s) => s.id !== original.id)!;
  expect(branch.parent_id).toBe(original.id);
  await expect.poll(() => openTabs(loom)).toEqual([branch.id]);
  // The tab and the sidebar tell the two apart (docs/DESIGN.md#branch-titles).
  await expect(tabs.first()).toContainText('How herons fish · retry 2');
  // The two fold into one sidebar row, the branch's, with their count (docs/DESIGN.md#the-sidebar).
  await expect(sidebarRow(page, 'How herons fish')).toHaveCount(1);
  await expect(sidebarRow(page, 'How herons fish · retry 2').getByRole('button', { name: '2 branches of How herons fish · retry 2' })).toBeVisible();

  await second.getByRole('button', { name: 'Previous version' }).click();
  await expect(first).toBeVisible();
  await expect(first.getByRole('group', { name: 'Version 1 of 2' })).toContainText('1 / 2');
  await expect(second).toHaveCount(0);
  await expect(tabs).toHaveCount(1);
  await expect.poll(() => openTabs(loom)).toEqual([original.id]);

  await first.getByRole('button', { name: 'Next version' }).click();
  await expect(second).toBeVisible();
  await expect(first).toHaveCount(0);
  await expect(second.getByRole('button', { name: 'Next version' })).toBeDisabled();
});

test('Edit message makes a new branch with the edited text; the old branch stays reachable', async ({ page, loom }) => {
  loom.model.enqueue({ text: 'A heron.' }, SUMMARY('Naming animals'), { text: 'A trout.' });
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Name a bird');
  await expect(article(page, 'Assistant', 'A heron.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();

  const mine = article(page, 'You', 'Name a bird');
  await mine.getByRole('button', { name: 'Edit message' }).click();
  const box = mine.getByRole('textbox', { name: 'Edited message' });
  await expect(box).toHaveValue('Name a bird');
  await box.fill('Name a fish');
  await mine.getByRole('button', { name: 'Submit edit' }).click();

  await expect(article(page, 'Assistant', 'A trout.')).toBeVisible();
  const edited = article(page, 'You', 'Name a fish');
  await expect(edited.getByRole('group', { name: 'Version 2 of 2' })).toBeVisible();
  await expect(article(page, 'You', 'Name a bird')).toHaveCount(0);
  const request = lastChatRequest(loom);
  expect(request.messages.at(-1).role).toBe('user');
  expect(JSON.stringify(request.messages).split('Name a fish')).toHaveLength(2);
  expect(JSON.stringify(request.messages)).not.toContain('Name a bird');
  expect(lastUserMessage(request).content).toContain('Name a fish');

  await edited.getByRole('button', { name: 'Previous version' }).click();
  await expect(article(page, 'You', 'Name a bird')).toBeVisible();
  await expect(article(page, 'Assistant', 'A heron.')).toBeVisible();
  await expect(article(page, 'Assistant', 'A trout.')).toHaveCount(0);
  await article(page, 'You', 'Name a bird').getByRole('button', { name: 'Next version' }).click();
  await expect(article(page, 'Assistant', 'A trout.')).toBeVisible();
  expect(loom.store.list()).toHaveLength(2);
});

test('an edited branch whose reply failed gets one with Get a reply, the edited message sent once', async ({ page, loom }) => {
  loom.model.enqueue({ text: 'A heron.' }, SUMMARY('Naming animals'), { status: 400, error: 'the model is confused' });
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Name a bird');
  await expect(article(page, 'Assistant', 'A heron.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  const mine = article(page, 'You', 'Name a bird');
  await mine.getByRole('button', { name: 'Edit message' }).click();
  await mine.getByRole('textbox', { name: 'Edited message' }).fill('Name a fish');
  await mine.getByRole('button', { name: 'Submit edit' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'the model is confused' })).toBeVisible();

  loom.model.enqueue({ text: 'A trout.' });
  const edited = article(page, 'You', 'Name a fish');
  await edited.getByRole('button', { name: 'Get a reply' }).click();
  await expect(article(page, 'Assistant', 'A trout.')).toBeVisible();
  await expect(edited.getByRole('button', { name: 'Get a reply' })).toHaveCount(0);
  const request = lastChatRequest(loom);
  expect(JSON.stringify(request.messages).split('Name a fish')).toHaveLength(2);
  expect(request.messages.at(-1).content).toContain('Name a fish');
});

const HERONS: ChatMessage[] = [
  { role: 'system', content: 'You are Loom.' },
  { role: 'user', content: '<user_input>\nFirst question\n</user_input>' },
  { role: 'assistant', content: 'First answer' },
  { role: 'user', content: '<user_input>\nSecond question\n</user_input>' },
  { role: 'assistant', content: 'Second answer' },
];

test('Fork from here opens the history up to that message in a tab right after the current one', async ({ page, loom }) => {
  const parent = loom.store.create({ title: 'Heron notes', messages: HERONS });
  await openLoom(page, loom);
  await sidebarRow(page, 'Heron notes')
    .getByRole('button', { name: /^Heron notes/ })
    .first()
    .click();
  await expect(article(page, 'Assistant', 'Second answer')).toBeVisible();
  await page.getByRole('button', { name: 'New tab with a new session' }).click();
  // The new session is made (its project instructions read) before its tab opens and takes the front.
  const tabs = page.getByRole('tablist', { name: 'Open sessions' });
  await expect(tabs.getByRole('tab', { selected: true })).toHaveText(/^Session /);
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeEnabled();
  const other = nth(loom.store.list(), 0);
  await tabs.getByRole('tab', { name: /Heron notes/ }).click();

  await article(page, 'Assistant', 'First answer').getByRole('button', { name: 'Fork from here' }).click();
  await expect.poll(async () => (await openTabs(loom)).length).toBe(3);
  const fork = loom.store.list().find((s) => s.parent_id === parent.id)!;
  expect(fork.message_count).toBe(3);
  await expect.poll(() => openTabs(loom)).toEqual([parent.id, fork.id, other.id]);
  await expect(article(page, 'Assistant', 'First answer')).toBeVisible();
  await expect(transcript(page).getByText('Second question')).toHaveCount(0);
  // Nothing was copied: the fork owns no transcript row.
  const own = loom.store.db.prepare('SELECT COUNT(*) AS n FROM transcript t JOIN sessions s ON s.pk = t.session_pk WHERE s.id = ?').get(fork.id) as {
    n: number;
  };
  expect(own.n).toBe(0);
});

test('the info dialog links the parent by title and shows the family, each opening its session', async ({ page, loom }) => {
  const parent = loom.store.create({ title: 'Heron notes', messages: HERONS });
  const fork = loom.store.fork(parent.id, 3);
  loom.store.rename(fork.id, 'Heron notes, first half');
  const sibling = loom.store.fork(parent.id);
  loom.store.rename(sibling.id, 'Heron notes, copy');
  await openLoom(page, loom);
  await expandFamilies(page);
  await sidebarRow(page, 'Heron notes, first half')
    .getByRole('button', { name: /^Heron notes, first half/ })
    .first()
    .click();
  await expect(article(page, 'Assistant', 'First answer')).toBeVisible();

  await page.getByRole('button', { name: 'Info' }).click();
  const dialog = page.getByRole('dialog', { name: 'Session info' });
  const family = dialog.getByRole('region', { name: 'Family' });
  await expect(family.getByRole('button', { name: 'Heron notes, copy' })).toBeVisible();
  await expect(family).toContainText('Heron notes, first half (this session)');
  await dialog.getByRole('button', { name: 'Heron notes', exact: true }).first().click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('heading', { level: 1, name: 'Heron notes', exact: true })).toBeVisible();
  await expect(article(page, 'Assistant', 'Second answer')).toBeVisible();

  // From the parent, the family lists both forks as children.
  await page.getByRole('button', { name: 'Info' }).click();
  await expect(dialog.getByRole('region', { name: 'Family' })).toContainText('Heron notes (this session)');
  await dialog.getByRole('region', { name: 'Family' }).getByRole('button', { name: 'Heron notes, copy' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Heron notes, copy' })).toBeVisible();
});

test("the family tree starts at the root, whichever branch's info shows it", async ({ page, loom }) => {
  const root = loom.store.create({ title: 'Heron notes', messages: HERONS });
  const fork = loom.store.fork(root.id, 3);
  const sibling = loom.store.fork(root.id);
  const grandchild = loom.store.fork(fork.id);
  expect([fork.title, sibling.title, grandchild.title]).toEqual(['Heron notes · fork at 3', 'Heron notes · fork at 5', 'Heron notes · fork at 3']);
  loom.store.rename(grandchild.id, 'Heron notes, deep');
  await openLoom(page, loom);
  await sidebarRow(page, 'Heron notes, deep')
    .getByRole('button', { name: /^Heron notes, deep/ })
    .first()
    .click();
  await page.getByRole('button', { name: 'Info' }).click();
  const family = page.getByRole('dialog', { name: 'Session info' }).getByRole('region', { name: 'Family' });
  await expect(family).toContainText('Heron notes, deep (this session)');
  // The root heads the tree; its two forks are under it, the grandchild under its own parent.
  const top = family.locator('.family-tree > li');
  await expect(top).toHaveCount(1);
  await expect(top.getByRole('button').first()).toHaveText('Heron notes');
  await expect(top.locator(':scope > ul > li')).toHaveCount(2);
  await expect(top.getByRole('button', { name: 'Heron notes · fork at 5' })).toBeVisible();
  await expect(top.locator(':scope > ul > li').first().locator('[aria-current]')).toHaveText('Heron notes, deep (this session)');
});

test('switching versions in a long conversation opens the sibling at that message, not at its end', async ({ page, loom }) => {
  const messages: ChatMessage[] = [{ role: 'system', content: 'You are Loom.' }];
  for (let k = 0; k < 200; k++)
    messages.push({ role: 'user', content: `<user_input>\nQuestion ${k}\n</user_input>` }, { role: 'assistant', content: `Answer ${k}` });
  const parent = loom.store.create({ title: 'Long talk', messages });
  // A second reply to question 20 (transcript index 41): a sibling at index 42.
  const branch = loom.store.appendBranch(parent.id, 42, { role: 'assistant', content: 'Another answer 20' });
  loom.store.rename(branch.id, 'Long talk, other answer');
  await openLoom(page, loom);
  await sidebarRow(page, 'Long talk, other answer')
    .getByRole('button', { name: /^Long talk, other answer/ })
    .first()
    .click();
  const other = article(page, 'Assistant', 'Another answer 20');
  await expect(other.getByRole('group', { name: 'Version 2 of 2' })).toBeVisible();

  await other.getByRole('button', { name: 'Previous version' }).click();
  const answer = article(page, 'Assistant', 'Answer 20');
  await expect(answer.getByRole('group', { name: 'Version 1 of 2' })).toBeInViewport();
  await expect(article(page, 'Assistant', 'Answer 199')).toHaveCount(0); // the end is far away, not rendered
  await expect.poll(() => openTabs(loom)).toEqual([parent.id]);

  await answer.getByRole('button', { name: 'Next version' }).click();
  await expect(other).toBeInViewport();
});

test('a fork whose parent was deleted names the parent by id, and its siblings are still its family', async ({ page, loom }) => {
  const parent = loom.store.create({ title: 'Gone', messages: HERONS });
  const fork = loom.store.fork(parent.id, 3);
  loom.store.rename(fork.id, 'Left behind');
  const sibling = loom.store.fork(parent.id);
  loom.store.rename(sibling.id, 'Also left');
  loom.store.delete(parent.id);
  await openLoom(page, loom);
  await expandFamilies(page);
  await sidebarRow(page, 'Left behind')
    .getByRole('button', { name: /^Left behind/ })
    .first()
    .click();
  await expect(article(page, 'Assistant', 'First answer')).toBeVisible();
  await page.getByRole('button', { name: 'Info' }).click();
  const dialog = page.getByRole('dialog', { name: 'Session info' });
  await expect(dialog).toContainText(`${parent.id} (deleted)`);
  const family = dialog.getByRole('region', { name: 'Family' });
  await expect(family).toContainText('Parent deleted');
  await family.getByRole('button', { name: 'Also left' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Also left' })).toBeVisible();
  await expect(article(page, 'Assistant', 'Second answer')).toBeVisible();
});
