/**
 * The sidebar at scale (docs/DESIGN.md#sidebar-paging): pages fetched as the user scrolls,
 * changes applied from events without fetching the list again, paged search whose hit
 * opens the session at the matching message, the fold at 800×600, message counts, pins and
 * the date groups.
 */
import type { Page, Request } from '@playwright/test';
import { SessionStore } from '../../src/core/store/session-store';
import type { ChatMessage } from '../../src/shared/types';
import { nth } from '../support/elements';
import { expectNoAxeViolations } from './axe';
import { SUMMARY, expect, newSession, openLoom, send, sessionAction, sidebarRow, test, transcript, type LoomHarness } from './fixtures';

const sidebar = (page: Page) => page.getByRole('complementary', { name: 'Sessions' });
const sessionList = (page: Page) => page.getByRole('list', { name: 'Session list' });
const searchResults = (page: Page) => page.getByRole('list', { name: 'Search results' });

/** The bridge calls of one method the page makes from now on, with their inputs. */
function callsTo(page: Page, method: string): Record<string, unknown>[] {
  const calls: Record<string, unknown>[] = [];
  page.on('request', (request: Request) => {
    if (new URL(request.url()).pathname === `/api/${method}`) calls.push(request.postDataJSON() as Record<string, unknown>);
  });
  return calls;
}

/** Scrolls a virtualised list's scroller to its end, again as rows load, until `done` shows. */
async function scrollUntilVisible(list: ReturnType<typeof sessionList>, done: ReturnType<Page['getByText']>) {
  await expect(async () => {
    await list.evaluate((el) => el.parentElement!.scrollTo({ top: el.parentElement!.scrollHeight }));
    await expect(done).toBeVisible({ timeout: 500 });
  }).toPass();
}

function conversation(length: number, special: Record<number, string> = {}): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: 'You are Loom.' }];
  for (let i = 1; i < length; i++) {
    const text = special[i] ?? `Message number ${i} about rivers`;
    messages.push(i % 2 ? { role: 'user', content: `<user_input>\n${text}\n</user_input>` } : { role: 'assistant', content: text });
  }
  return messages;
}

function seedTitled(loom: LoomHarness, count: number, title: (i: number) => string) {
  return Array.from({ length: count }, (_, i) => loom.store.create({ title: title(i), cwd: loom.projectDir }));
}

test('the list loads a page at a time as it scrolls, and a changed session moves to the top without the list fetched again', async ({ page, loom }) => {
  const sessions = seedTitled(loom, 250, (i) => `Session ${String(i).padStart(3, '0')}`);
  const lists = callsTo(page, 'sessions.list');
  await openLoom(page, loom);
  await expect(sessionList(page).getByRole('listitem').first()).toContainText('Session 249');
  expect(lists).toHaveLength(1);
  expect(lists[0]).not.toHaveProperty('after');

  await scrollUntilVisible(sessionList(page), sessionList(page).getByText('Session 000', { exact: true }));
  // 250 sessions in pages of 100: two more pages, each after the last row loaded.
  expect(lists).toHaveLength(3);
  expect(lists[1]).toMatchObject({ after: { id: nth(sessions, 150).id } });
  expect(await sessionList(page).getByRole('listitem').count()).toBeLessThan(60);

  // A session far down gets a message (here from another connection, as `loom` in a terminal would): it moves to the top.
  const before = lists.length;
  const other = SessionStore.open(loom.dataDir);
  other.appendMessage(nth(sessions, 3).id, { role: 'user', content: 'one more thing' });
  other.close();
  await sessionList(page).evaluate((el) => el.parentElement!.scrollTo({ top: 0 }));
  await expect(sessionList(page).getByRole('listitem').first()).toContainText('Session 003');
  // A rename changes the row in place: only new messages move a session (docs/DESIGN.md#the-sidebar).
  loom.mode.backend.engine.rename(nth(sessions, 3).id, 'Renamed deep session');
  await expect(sessionList(page).getByRole('listitem').first()).toContainText('Renamed deep session');
  loom.mode.backend.engine.rename(nth(sessions, 247).id, 'Renamed fourth session');
  await expect(sessionList(page).getByRole('listitem').nth(3)).toContainText('Renamed fourth session');
  expect(lists).toHaveLength(before);

  // The archived view pages too, and the active session stays marked.
  await sidebarRow(page, 'Session 248')
    .getByRole('button', { name: /^Session 248/ })
    .click();
  await expect(sidebarRow(page, 'Session 248').getByRole('button', { name: /^Session 248/ })).toHaveAttribute('aria-current', 'page');
  loom.mode.backend.engine.setArchived(nth(sessions, 249).id, true);
  await expect(sessionList(page).getByText('Session 249', { exact: true })).toHaveCount(0);
  await page.getByRole('switch', { name: 'Show archived' }).check();
  await expect(sidebarRow(page, 'Session 249')).toContainText('archived');
  expect(lists.at(-1)).toMatchObject({ includeArchived: true });
  await expect(sidebarRow(page, 'Session 248').getByRole('button', { name: /^Session 248/ })).toHaveAttribute('aria-current', 'page');
});

test('search results come a page at a time; a hit opens its session at the matching message, highlighted', async ({ page, loom }) => {
  seedTitled(loom, 120, (i) => `Osprey notes ${String(i).padStart(3, '0')}`);
  const target = loom.store.create({
    title: 'Long chat',
    cwd: loom.projectDir,
    messages: conversation(400, { 37: 'Where do narwhals <user_input> live in winter?' }),
  });
  const searches = callsTo(page, 'sessions.search');
  const hitsPerPage: number[] = [];
  page.on('response', async (response) => {
    if (new URL(response.url()).pathname === '/api/sessions.search') hitsPerPage.push(((await response.json()) as { value: unknown[] }).value.length);
  });
  await openLoom(page, loom);
  const box = page.getByRole('searchbox', { name: 'Search sessions' });

  await box.fill('osprey');
  await expect(searchResults(page).getByRole('listitem').first()).toContainText('Osprey notes');
  // Every hit is reachable by scrolling: no cap, later pages by offset.
  await expect(async () => {
    await searchResults(page).evaluate((el) => el.parentElement!.scrollTo({ top: el.parentElement!.scrollHeight }));
    expect(searches.map((s) => s.offset ?? 0)).toEqual(expect.arrayContaining([0, 50, 100]));
    await expect(searchResults(page).getByText('Loading more…')).toHaveCount(0, { timeout: 500 });
  }).toPass();
  expect(searches.filter((s) => s.query === 'osprey')).toHaveLength(3);
  await expect.poll(() => hitsPerPage).toEqual([50, 50, 20]);
  await expect(searchResults(page).getByRole('listitem').last()).toContainText('Osprey notes');

  await box.fill('narwhals');
  const hit = searchResults(page).getByRole('listitem').filter({ hasText: 'Long chat' });
  await expect(hit.locator('mark')).toHaveText('narwhals');
  await expect(hit).toContainText('Where do narwhals <user_input> live in winter?');
  await expect(hit).not.toContainText('</user_input>');
  await hit.getByRole('button', { name: /^Long chat/ }).click();

  const found = transcript(page).locator('.row.search-found');
  await expect(found).toContainText('Where do narwhals <user_input> live in winter?');
  await expect(found).toBeInViewport();
  await expect(found).toHaveAttribute('aria-current', 'true');
  await expect(transcript(page).getByText('Message number 399 about rivers')).not.toBeInViewport();
  expect(target.message_count).toBe(400);

  // Opening the same hit again, with its tab open and scrolled away, goes back to the message.
  await transcript(page).hover();
  await expect(async () => {
    await page.mouse.wheel(0, 20_000);
    await expect(found).not.toBeInViewport({ timeout: 500 });
  }).toPass();
  await hit.getByRole('button', { name: /^Long chat/ }).click();
  await expect(transcript(page).locator('.row.search-found')).toBeInViewport();
});

test('at 800×600 the sidebar fits, folds to a rail with a button or Alt+B, and stays folded after a reload', async ({ page, loom }) => {
  await page.setViewportSize({ width: 800, height: 600 });
  const longTitle = 'A very long session title that cannot fit in the sidebar at this width, about herons and kingfishers';
  loom.store.create({ title: longTitle, cwd: loom.projectDir, messages: conversation(3) });
  await openLoom(page, loom);
  await sidebarRow(page, 'A very long')
    .getByRole('button', { name: /^A very long/ })
    .click();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();

  // Full title on hover, though the row cuts it short.
  const open = sidebarRow(page, 'A very long').getByRole('button', { name: /^A very long/ });
  await expect(open).toHaveAttribute('title', longTitle);
  expect(await open.locator('.session-title').evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);

  const within = async (name: string, locator: ReturnType<Page['getByRole']>) => {
    const box = (await locator.boundingBox())!;
    expect(box, name).not.toBeNull();
    expect(box.x, name).toBeGreaterThanOrEqual(0);
    expect(box.y, name).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, name).toBeLessThanOrEqual(800);
    expect(box.y + box.height, name).toBeLessThanOrEqual(600);
    return box;
  };
  const side = await within('sidebar', sidebar(page));
  const main = await within('main', page.getByRole('main'));
  expect(side.x + side.width).toBeLessThanOrEqual(main.x + 1);
  for (const [name, control] of [
    ['search', page.getByRole('searchbox', { name: 'Search sessions' })],
    ['message box', page.getByRole('textbox', { name: 'Message' })],
    ['send', page.getByRole('button', { name: 'Send' })],
    ['import', page.getByRole('button', { name: 'Import session…' })],
    ['import from', page.getByRole('button', { name: 'Import from…' })],
  ] as const) {
    await within(name, control);
  }

  if (process.env.LOOM_SHOT) await page.screenshot({ path: `${process.env.LOOM_SHOT}-open.png` });
  const toggle = page.getByRole('button', { name: 'Session sidebar' });
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(page.getByRole('searchbox', { name: 'Search sessions' })).toBeHidden();
  await expect(toggle).toBeFocused();
  const folded = (await sidebar(page).boundingBox())!;
  expect(folded.width).toBeLessThan(60);
  expect((await page.getByRole('main').boundingBox())!.width).toBeGreaterThan(main.width + 150);
  await within('new session', page.getByRole('button', { name: 'New session' }).first());
  if (process.env.LOOM_SHOT) await page.screenshot({ path: `${process.env.LOOM_SHOT}-folded.png` });

  await page.reload();
  await expect(page.getByRole('button', { name: 'Session sidebar' })).toHaveAttribute('aria-expanded', 'false');
  await page.keyboard.press('Alt+KeyB');
  await expect(page.getByRole('button', { name: 'Session sidebar' })).toHaveAttribute('aria-expanded', 'true');
  await expect(page.getByRole('searchbox', { name: 'Search sessions' })).toBeVisible();
  // Folded, the search shortcut unfolds the sidebar to reach its box.
  await page.keyboard.press('Alt+KeyB');
  await expect(page.getByRole('searchbox', { name: 'Search sessions' })).toBeHidden();
  await page.keyboard.press('Control+KeyK');
  await expect(page.getByRole('searchbox', { name: 'Search sessions' })).toBeFocused();
  await expect(page.getByRole('button', { name: 'Session sidebar' })).toHaveAttribute('aria-expanded', 'true');
});

test('message counts leave out the system prompt and say "1 message"', async ({ page, loom }) => {
  loom.store.create({ title: 'One question', cwd: loom.projectDir, messages: conversation(2) });
  loom.model.enqueue({ text: 'Hello back.' }, SUMMARY('A greeting'));
  await openLoom(page, loom);
  await expect(sidebarRow(page, 'One question')).toContainText('1 message');
  await expect(sidebarRow(page, 'One question')).not.toContainText('1 messages');

  await newSession(page);
  // A new session is listed from its first message on.
  await expect(sidebar(page).getByRole('listitem')).toHaveCount(1);
  await send(page, 'Hello');
  await expect(transcript(page).getByRole('article', { name: 'Assistant' })).toContainText('Hello back.');
  await expect(sidebarRow(page, 'A greeting')).toContainText('2 messages');

  await page.getByRole('button', { name: 'Info' }).click();
  await expect(page.getByRole('dialog', { name: 'Session info' })).toContainText('Messages2');
});

test('Alt+N saves no empty session: closing its tab or reloading leaves none in the sidebar or the store', async ({ page, loom }) => {
  loom.store.create({ title: 'Kept', cwd: loom.projectDir, messages: conversation(3) });
  await openLoom(page, loom);
  const tabs = page.getByRole('tablist', { name: 'Open sessions' }).getByRole('tab');
  await page.keyboard.press('Alt+KeyN');
  await expect(tabs).toHaveCount(1);
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeEnabled();
  expect(loom.store.list()).toHaveLength(2); // its tab works in it until it is left
  await expect(sidebar(page).getByRole('listitem')).toHaveCount(1);
  await page.keyboard.press('Alt+KeyW');
  await expect(tabs).toHaveCount(0);
  await expect.poll(() => loom.store.list().map((s) => s.title)).toEqual(['Kept']);

  // One left open in a tab, switched away from, then the page reloaded.
  await page.keyboard.press('Alt+KeyN');
  await expect(tabs).toHaveCount(1);
  await sidebarRow(page, 'Kept').getByRole('button', { name: /^Kept/ }).click();
  await expect(tabs).toHaveCount(2);
  await expect.poll(() => loom.store.list()).toHaveLength(2);
  // The window saves its tabs a moment after they change: reload once both are saved.
  await expect.poll(async () => (await loom.mode.backend.handlers['settings.get']({})).openTabs).toHaveLength(2);
  await page.reload();
  await expect(tabs).toHaveCount(1);
  await expect(tabs.first()).toHaveText('Kept');
  await expect.poll(() => loom.store.list({ includeArchived: true }).map((s) => s.title)).toEqual(['Kept']);
  await expect(sidebar(page).getByRole('listitem')).toHaveCount(1);
  expect(loom.store.listTrash()).toEqual([]);
});

test('opening or renaming a session keeps its place in the list; a new message moves it up', async ({ page, loom }) => {
  const older = loom.store.create({ title: 'Older talk', cwd: loom.projectDir, messages: conversation(3) });
  loom.store.create({ title: 'Newer talk', cwd: loom.projectDir, messages: conversation(3) });
  loom.model.enqueue({ text: 'Noted.' }, SUMMARY('unused'));
  await openLoom(page, loom);
  const rows = sessionList(page).getByRole('listitem');
  await expect(rows.first()).toContainText('Newer talk');
  await sidebarRow(page, 'Older talk')
    .getByRole('button', { name: /^Older talk/ })
    .click();
  await expect(transcript(page)).toContainText('Message number 2 about rivers');
  await sessionAction(page, 'Older talk', 'Rename…');
  const dialog = page.getByRole('dialog', { name: 'Rename session' });
  await dialog.getByRole('textbox', { name: 'Title' }).fill('Older talk, renamed');
  await dialog.getByRole('button', { name: 'Rename' }).click();
  await expect(rows.nth(1)).toContainText('Older talk, renamed');
  await expect(rows.first()).toContainText('Newer talk');
  expect(loom.store.getMeta(older.id).updated_at).toBe(older.updated_at);

  await send(page, 'One more question');
  await expect(transcript(page).getByRole('article', { name: 'Assistant' }).last()).toContainText('Noted.');
  await expect(rows.first()).toContainText('Older talk, renamed');
});

test('a pinned session stays on top, across a reload, until unpinned', async ({ page, loom }) => {
  const older = loom.store.create({ title: 'Pinned talk', cwd: loom.projectDir, messages: conversation(3) });
  loom.store.create({ title: 'Newer talk', cwd: loom.projectDir, messages: conversation(3) });
  await openLoom(page, loom);
  const rows = sessionList(page).getByRole('listitem');
  await expect(rows.first()).toContainText('Newer talk');
  await sessionAction(page, 'Pinned talk', 'Pin to top');
  await expect(rows.first()).toContainText('Pinned talk');
  await expect(rows.first()).toContainText('pinned');
  expect(loom.store.getMeta(older.id)).toMatchObject({ pinned: true, updated_at: older.updated_at });
  // Another session's new message does not move it past the pinned one.
  const other = SessionStore.open(loom.dataDir);
  other.create({ title: 'Newest talk', cwd: loom.projectDir, messages: conversation(3) });
  other.close();
  await expect(rows.nth(1)).toContainText('Newest talk');
  await page.reload();
  await expect(rows.first()).toContainText('Pinned talk');
  await sessionAction(page, 'Pinned talk', 'Unpin');
  await expect(rows.last()).toContainText('Pinned talk');
  await expect(rows.last()).not.toContainText('pinned');
});

test('the list is grouped by last activity under headings, pinned first; the arrow keys cross the groups', async ({ page, loom }) => {
  const midnight = new Date();
  midnight.setHours(0, 0, 0, 0);
  const daysBefore = (days: number) => new Date(midnight.getFullYear(), midnight.getMonth(), midnight.getDate() - days, 12).toISOString();
  const seed = (title: string, updatedAt: string | null) => {
    const meta = loom.store.create({ title, cwd: loom.projectDir, messages: conversation(3) });
    if (updatedAt) loom.store.setDates(meta.id, updatedAt, updatedAt);
    return meta;
  };
  seed('Ancient talk', daysBefore(40));
  seed('Last month talk', daysBefore(30));
  seed('Midweek talk', daysBefore(3));
  seed('Yesterday talk', daysBefore(1));
  seed('Fresh talk', null);
  loom.store.setPinned(seed('Pinned old talk', daysBefore(60)).id, true);
  await openLoom(page, loom);
  const list = sessionList(page);
  await expect(list.getByRole('heading')).toHaveText(['Pinned', 'Today', 'Yesterday', 'Previous 7 days', 'Older']);
  // Read top to bottom, each heading comes before the rows of its group; the empty ones are left out.
  await expect(list.locator('h2, .session-title')).toHaveText([
    'Pinned',
    'Pinned old talk',
    'Today',
    'Fresh talk',
    'Yesterday',
    'Yesterday talk',
    'Previous 7 days',
    'Midweek talk',
    'Older',
    'Last month talk',
    'Ancient talk',
  ]);
  await expectNoAxeViolations(page, sidebar(page));

  await list.getByRole('button', { name: /^Pinned old talk/ }).focus();
  for (const title of ['Fresh talk', 'Yesterday talk', 'Midweek talk']) {
    await page.keyboard.press('ArrowDown');
    await expect(list.getByRole('button', { name: new RegExp(`^${title}`) })).toBeFocused();
  }
  await page.keyboard.press('ArrowUp');
  await expect(list.getByRole('button', { name: /^Yesterday talk/ })).toBeFocused();
});
