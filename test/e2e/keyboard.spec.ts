/**
 * Keyboard use: Home and End in a long transcript reach its very first and last message,
 * Escape that closes a dialog or a menu puts the focus back on the control that opened
 * it, a whole flow (new session, send, menu, rename, Escape) works without a mouse, and
 * the session list is one Tab stop behind a Skip to chat link.
 */
import type { Locator, Page } from '@playwright/test';
import type { ChatMessage } from '../../src/shared/types';
import { nth } from '../support/elements';
import { SUMMARY, expect, openLoom, sessionAction, sidebarRow, test, transcript } from './fixtures';

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

/** Presses Tab until `target` has the focus (a keyboard user's way there), failing after `limit` presses. */
async function tabTo(page: Page, target: Locator, limit = 60): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (await target.evaluate((el) => el === el.ownerDocument.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${target.toString()}`);
}

/** The focused control shows a focus ring (our :focus-visible outline). */
async function expectFocusRing(target: Locator): Promise<void> {
  await expect(target).toBeFocused();
  expect(await target.evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el).outlineStyle)).toBe('solid');
}

test('keyboard only: new session, send, session menu, rename, Escape — focus visible and back on the control that opened each', async ({ page, loom }) => {
  loom.model.enqueue({ text: 'Herons wait.' }, SUMMARY('Heron talk'));
  await openLoom(page, loom);
  const sidebar = page.getByRole('complementary', { name: 'Sessions' });

  const newButton = sidebar.getByRole('button', { name: 'New session' });
  await tabTo(page, newButton);
  await expectFocusRing(newButton);
  await page.keyboard.press('Enter');
  const box = page.getByRole('textbox', { name: 'Message' });
  await expect(box).toBeFocused();
  await page.keyboard.type('Tell me about herons');
  await page.keyboard.press('Enter');
  await expect(transcript(page).getByText('Herons wait.')).toBeVisible();

  // The row is the list's one Tab stop; ArrowRight opens its actions.
  const row = sidebarRow(page, 'Heron talk').getByRole('button', { name: /^Heron talk/ });
  await tabTo(page, row);
  await expectFocusRing(row);
  await page.keyboard.press('ArrowRight');
  const actions = sidebarRow(page, 'Heron talk').getByRole('button', { name: 'Actions for Heron talk' });
  const menu = page.getByRole('menu', { name: 'Actions for Heron talk' });
  await expect(menu.getByRole('menuitem', { name: 'Open' })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expectFocusRing(menu.getByRole('menuitem', { name: 'Rename…' }));
  await page.keyboard.press('Enter');
  const rename = page.getByRole('dialog', { name: 'Rename session' });
  await expect(rename.getByRole('textbox', { name: 'Title' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(rename).toBeHidden();
  await expect(actions).toBeFocused();

  // Again, this time renaming: Enter in the title saves, and the focus is back on the same button.
  await page.keyboard.press('Enter');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('Heron field notes');
  await page.keyboard.press('Enter');
  await expect(rename).toBeHidden();
  await expect(page.getByRole('heading', { level: 1, name: 'Heron field notes' })).toBeVisible();
  const renamedActions = sidebarRow(page, 'Heron field notes').getByRole('button', { name: 'Actions for Heron field notes' });
  await expect(renamedActions).toBeFocused();
  expect(nth(loom.store.list(), 0).title).toBe('Heron field notes');
});

test('Escape that closes a menu or a dialog gives the focus back to the control that opened it', async ({ page, loom }) => {
  loom.store.create({ title: 'Notes', cwd: loom.projectDir });
  await openLoom(page, loom);
  const row = sidebarRow(page, 'Notes');
  await row.getByRole('button', { name: /^Notes/ }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Notes' })).toBeVisible();

  const actions = row.getByRole('button', { name: 'Actions for Notes' });
  await actions.click();
  await expect(page.getByRole('menu')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('menu')).toBeHidden();
  await expect(actions).toBeFocused();

  // A right click opens the same menu; it returns to the row's actions button too.
  await row.getByRole('button', { name: /^Notes/ }).click({ button: 'right' });
  await expect(page.getByRole('menu')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(actions).toBeFocused();

  for (const [opener, name] of [
    [page.getByRole('button', { name: 'Info' }), 'Session info'],
    [page.getByRole('button', { name: 'Settings' }), 'Settings'],
  ] as const) {
    await opener.click();
    await expect(page.getByRole('dialog', { name })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog', { name })).toBeHidden();
    await expect(opener).toBeFocused();
  }

  // A dialog opened from a menu item returns to the button that opened the menu.
  for (const [item, name] of [
    ['Delete…', 'Delete session?'],
    ['Info', 'Session info'],
  ] as const) {
    await sessionAction(page, 'Notes', item);
    await expect(page.getByRole('dialog', { name })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog', { name })).toBeHidden();
    await expect(actions).toBeFocused();
  }
});

test('keyboard only: Import from… is reached with Tab, opens on Enter, and Escape puts the focus back on it', async ({ page, loom }) => {
  await openLoom(page, loom);
  const opener = page.getByRole('complementary', { name: 'Sessions' }).getByRole('button', { name: 'Import from…' });
  await tabTo(page, opener);
  await expectFocusRing(opener);
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Import from another agent' });
  const source = dialog.getByRole('combobox', { name: 'Source' });
  await expectFocusRing(source);
  await page.keyboard.press('Tab');
  await expectFocusRing(dialog.getByRole('textbox', { name: /^Folder or file/ }));
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expectFocusRing(opener);
});

test('keyboard only: the Team search scope by arrow keys, and Share with… from the session menu, Escape back on the menu button', async ({ page, loom }) => {
  loom.store.create({ title: 'Heron notes' });
  // A hub nothing answers at: the sync is on (its status says unreachable), so the scope switch and Share with… are there.
  await loom.mode.backend.handlers['settings.set']({ hubUrl: 'postgres://alice:kb-pw@127.0.0.1:1/loom' });
  await openLoom(page, loom);
  const sidebar = page.getByRole('complementary', { name: 'Sessions' });
  await expect(sidebar.getByRole('status', { name: 'Sync status' })).toHaveText(/^Hub unreachable/);

  const thisDevice = sidebar.getByRole('radio', { name: 'This device' });
  await tabTo(page, thisDevice);
  await expectFocusRing(thisDevice);
  await page.keyboard.press('ArrowRight');
  await expectFocusRing(sidebar.getByRole('radio', { name: 'Team' }));
  await expect(sidebar.getByRole('radio', { name: 'Team' })).toBeChecked();

  const actions = sidebarRow(page, 'Heron notes').getByRole('button', { name: 'Actions for Heron notes' });
  await tabTo(page, sidebarRow(page, 'Heron notes').getByRole('button', { name: /^Heron notes/ }));
  await page.keyboard.press('ArrowRight');
  const menu = page.getByRole('menu', { name: 'Actions for Heron notes' });
  await expect(menu.getByRole('menuitem', { name: 'Open' })).toBeFocused();
  // Up from the first item wraps to the last (Delete…); Share with… is just above it.
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  const share = menu.getByRole('menuitem', { name: 'Share with…' });
  await expectFocusRing(share);
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Share with a team' });
  await expect(dialog.getByRole('textbox', { name: 'Team' })).toBeFocused();
  await page.keyboard.type('core');
  await page.keyboard.press('Enter');
  await expect(dialog.getByRole('status')).toHaveText(/^The share with "core" is queued: Hub unreachable/);
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(actions).toBeFocused();
});

test('the session list is one Tab stop, walked with the arrow keys; Skip to chat is the first Tab stop of the page', async ({ page, loom }) => {
  // 232 sessions were about 464 Tab presses (two buttons a row) before the list became one stop.
  for (let i = 0; i < 232; i++) loom.store.create({ title: `Session ${String(i).padStart(3, '0')}`, cwd: loom.projectDir, messages: conversation(3) });
  await openLoom(page, loom);
  const sidebar = page.getByRole('complementary', { name: 'Sessions' });
  const rows = sidebar.getByRole('list', { name: 'Session list' });
  await expect(rows.getByRole('listitem').first()).toBeVisible();
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to chat' });
  await expectFocusRing(skip);
  await expect(skip).toBeInViewport();

  await rows
    .getByRole('button', { name: /^Session 231/ })
    .first()
    .click();
  const box = page.getByRole('textbox', { name: 'Message' });
  await expect(box).toBeEnabled();
  await sidebar.getByRole('button', { name: 'Session sidebar' }).focus();
  await page.keyboard.press('Shift+Tab');
  await expect(skip).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(box).toBeFocused();

  // From the search box, out of the sidebar in a few presses, whatever the number of sessions.
  await sidebar.getByRole('searchbox', { name: 'Search sessions' }).focus();
  let presses = 0;
  while (await sidebar.evaluate((el) => el.contains(el.ownerDocument.activeElement))) {
    await page.keyboard.press('Tab');
    if (++presses > 40) throw new Error('Tab never left the sidebar');
  }
  expect(presses).toBeLessThan(12);
  test.info().annotations.push({ type: 'tabs-past-sidebar', description: String(presses) });

  const first = rows.getByRole('button', { name: /^Session 231/ });
  await tabTo(page, first);
  await page.keyboard.press('ArrowDown');
  await expect(rows.getByRole('button', { name: /^Session 230/ })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowUp');
  await expect(rows.getByRole('button', { name: /^Session 230/ })).toBeFocused();
  await page.keyboard.press('End');
  await expect(rows.getByRole('button', { name: /^Session 132/ })).toBeFocused(); // the last of the first page of 100
  await page.keyboard.press('Home');
  await expect(first).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('menu', { name: 'Actions for Session 230' }).getByRole('menuitem', { name: 'Open' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(sidebarRow(page, 'Session 230').getByRole('button', { name: 'Actions for Session 230' })).toBeFocused();
  await page.keyboard.press('Shift+Tab'); // the row's own button, the list's Tab stop
  await expect(rows.getByRole('button', { name: /^Session 230/ })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Session 230' })).toBeVisible();
});
