/**
 * Attention: every open tab shows when it is working or waits for the user (in words for
 * screen readers, a sign for the eye); a turn that ends or asks for approval in a tab not in
 * front raises a system notification (the real Notification API, recorded by a wrapper);
 * notifications are offered once, politely; the unsent draft of each tab survives a reload.
 * Attention you cannot miss (issue 23): a tab scrolled out of the strip calls through its
 * overflow control, sidebar rows carry the markers too, a prompt takes the focus and gives
 * it back, a pointer leads a reader scrolled up down to it, the status line says what it
 * waits for, a server that is down is one banner with the window's advice, and the chat
 * header keeps its title at 800×600 with its buttons under More.
 */
import type { Page } from '@playwright/test';
import type { ChatMessage } from '../../src/shared/types';
import { expectNoAxeViolations } from './axe';
import { SUMMARY, expect, newSession, openLoom, send, sidebarRow, test, transcript, type LoomHarness } from './fixtures';

/** Wraps window.Notification so the test sees each one made; the real constructor still runs. (A string: this tsconfig has no DOM.) */
const RECORD_NOTIFICATIONS = `
  window.recordedNotifications = [];
  const Real = window.Notification;
  window.Notification = class extends Real {
    constructor(title, options) {
      super(title, options);
      window.recordedNotifications.push({ title, body: options && options.body });
    }
  };
`;

const notifications = (page: Page) => page.evaluate<{ title: string; body?: string }[]>('window.recordedNotifications');
/** The open tabs are saved in the settings a moment after they change: a reload before that would lose them. */
async function tabsSaved(loom: LoomHarness, openTabs: string[], activeTab: string): Promise<void> {
  await expect.poll(() => loom.mode.backend.handlers['settings.get']({})).toMatchObject({ openTabs, activeTab });
}

const tabs = (page: Page) => page.getByRole('tablist', { name: 'Open sessions' });

async function openSession(page: Page, title: string): Promise<void> {
  await sidebarRow(page, title)
    .getByRole('button', { name: new RegExp(`^${title}`) })
    .click();
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
}

test.describe('with notifications allowed', () => {
  test.use({ permissions: ['notifications'] });

  test('a background tab shows working and needs-approval badges and notifies; the tab in front does not', async ({ page, loom }) => {
    await page.addInitScript({ content: RECORD_NOTIFICATIONS });
    loom.store.create({ title: 'Heron notes', cwd: loom.projectDir });
    loom.store.create({ title: 'Egret notes', cwd: loom.projectDir });
    let releaseCall!: () => void;
    let releaseReply!: () => void;
    loom.model.enqueue(
      {
        toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'x' } }],
        pauseAfterChunks: 0,
        resume: new Promise<void>((r) => (releaseCall = r)),
      },
      { text: 'Wrote a.txt.' },
      SUMMARY('Heron notes'),
      { text: 'Herons stand still.', pauseAfterChunks: 0, resume: new Promise<void>((r) => (releaseReply = r)) },
    );
    await openLoom(page, loom);
    await openSession(page, 'Heron notes');
    await openSession(page, 'Egret notes');
    await tabs(page)
      .getByRole('tab', { name: /^Heron notes/ })
      .click();
    await send(page, 'Write a.txt');

    const heronTab = tabs(page).getByRole('tab', { name: /^Heron notes/ });
    await expect(heronTab).toHaveAccessibleName('Heron notes (working)');
    await tabs(page)
      .getByRole('tab', { name: /^Egret notes/ })
      .click();
    await expect(heronTab).toHaveAccessibleName('Heron notes (working)');
    releaseCall();
    await expect(heronTab).toHaveAccessibleName('Heron notes (needs your approval)');
    await expect(heronTab).toContainText('!');
    await expect.poll(() => notifications(page)).toEqual([{ title: 'Loom: Heron notes', body: 'Waits for your approval to run write_file.' }]);

    // Answered in front, the turn's end notifies nobody.
    await heronTab.click();
    await page.getByRole('group', { name: 'Approval needed: write_file' }).getByRole('button', { name: 'Allow once' }).click();
    await expect(transcript(page).getByText('Wrote a.txt.')).toBeVisible();
    await expect(heronTab).toHaveAccessibleName('Heron notes');
    expect(await notifications(page)).toHaveLength(1);

    // A reply that ends while another tab is in front does.
    await send(page, 'And herons?');
    await expect(heronTab).toHaveAccessibleName('Heron notes (working)');
    await tabs(page)
      .getByRole('tab', { name: /^Egret notes/ })
      .click();
    releaseReply();
    await expect(heronTab).toHaveAccessibleName('Heron notes');
    await expect.poll(() => notifications(page)).toHaveLength(2);
    expect((await notifications(page))[1]).toEqual({ title: 'Loom: Heron notes', body: 'The reply is ready.' });
  });
});

test('notifications are offered once, on first need, and "Not now" is remembered', async ({ page, loom }) => {
  const heron = loom.store.create({ title: 'Heron notes', cwd: loom.projectDir });
  const egret = loom.store.create({ title: 'Egret notes', cwd: loom.projectDir });
  let release!: () => void;
  loom.model.enqueue({ text: 'First reply.', pauseAfterChunks: 0, resume: new Promise<void>((r) => (release = r)) }, SUMMARY('Heron notes'), {
    text: 'Second reply.',
  });
  await openLoom(page, loom);
  expect(await page.evaluate<string>('Notification.permission')).toBe('default');
  await openSession(page, 'Heron notes');
  await openSession(page, 'Egret notes');
  const offer = page.getByRole('status').filter({ hasText: 'Loom can notify you' });
  await tabs(page)
    .getByRole('tab', { name: /^Heron notes/ })
    .click();
  await send(page, 'Hello');
  await tabs(page)
    .getByRole('tab', { name: /^Egret notes/ })
    .click();
  await expect(offer).toHaveCount(0);
  release();
  await expect(offer).toBeVisible();
  await offer.getByRole('button', { name: 'Not now' }).click();
  await expect(offer).toHaveCount(0);

  await tabsSaved(loom, [heron.id, egret.id], egret.id);
  await page.reload();
  await tabs(page)
    .getByRole('tab', { name: /^Heron notes/ })
    .click();
  await send(page, 'Again');
  await tabs(page)
    .getByRole('tab', { name: /^Egret notes/ })
    .click();
  const heronTab = tabs(page).getByRole('tab', { name: /^Heron notes/ });
  await expect(heronTab).toHaveAccessibleName('Heron notes');
  await sidebarRow(page, 'Heron notes')
    .getByRole('button', { name: /^Heron notes/ })
    .click();
  await expect(transcript(page).getByText('Second reply.')).toBeVisible();
  await expect(offer).toHaveCount(0);
});

test("each tab's unsent draft survives a reload and is gone once sent", async ({ page, loom }) => {
  const heron = loom.store.create({ title: 'Heron notes', cwd: loom.projectDir });
  const egret = loom.store.create({ title: 'Egret notes', cwd: loom.projectDir });
  loom.model.enqueue({ text: 'Noted.' }, SUMMARY('Heron notes'));
  await openLoom(page, loom);
  const box = page.getByRole('textbox', { name: 'Message' });
  await openSession(page, 'Heron notes');
  await box.fill('Half a thought about herons');
  await openSession(page, 'Egret notes');
  await expect(box).toHaveValue('');
  await box.fill('Egrets, later');

  await tabsSaved(loom, [heron.id, egret.id], egret.id);
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Egret notes' })).toBeVisible();
  await expect(box).toHaveValue('Egrets, later');
  await tabs(page)
    .getByRole('tab', { name: /^Heron notes/ })
    .click();
  await expect(box).toHaveValue('Half a thought about herons');
  await box.press('Enter');
  await expect(transcript(page).getByText('Noted.')).toBeVisible();
  await expect(box).toHaveValue('');

  await tabsSaved(loom, [heron.id, egret.id], heron.id);
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Heron notes' })).toBeVisible();
  await expect(box).toHaveValue('');
  await tabs(page)
    .getByRole('tab', { name: /^Egret notes/ })
    .click();
  await expect(box).toHaveValue('Egrets, later');
});

const WRITE_A = { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'x' } }] };

/** Sessions open in tabs when the window opens (the saved tabs), the first in front. */
async function openInTabs(loom: LoomHarness, titles: string[]): Promise<string[]> {
  const ids = titles.map((title) => loom.store.create({ title, cwd: loom.projectDir }).id);
  await loom.mode.backend.handlers['settings.set']({ openTabs: ids, activeTab: ids[0] });
  return ids;
}

test('with nine tabs the one waiting for approval, scrolled out of the strip, calls through the overflow control, whose list brings it back', async ({
  page,
  loom,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const titles = Array.from({ length: 9 }, (_, n) => `Notes on wading birds ${n + 1}`);
  await openInTabs(loom, titles);
  loom.model.enqueue(WRITE_A, { text: 'Wrote a.txt.' }, SUMMARY('Writing'));
  await openLoom(page, loom);
  const first = tabs(page).getByRole('tab', { name: /^Notes on wading birds 1\b/ });
  await expect(first).toHaveAttribute('aria-selected', 'true');
  await send(page, 'Write a.txt');
  await expect(first).toHaveAccessibleName('Notes on wading birds 1 (needs your approval)');

  // The last tab in front: the strip scrolls to it and the first is out of view.
  const allTabs = page.getByRole('button', { name: /^All tabs/ });
  await expect(allTabs).toHaveAccessibleName('All tabs');
  await tabs(page)
    .getByRole('tab', { name: /^Notes on wading birds 9\b/ })
    .click();
  await expect(first).not.toBeInViewport({ ratio: 1 });
  await expect(allTabs).toHaveAccessibleName('All tabs (one out of view needs your approval)');
  await expect(allTabs).toContainText('!');
  await expect(page.getByRole('button', { name: 'Scroll tabs left' })).toBeEnabled();
  await expectNoAxeViolations(page);

  await allTabs.click();
  const list = page.getByRole('menu', { name: 'Open tabs' });
  await expect(list.getByRole('menuitemradio')).toHaveCount(9);
  await expect(list.getByRole('menuitemradio', { name: 'Notes on wading birds 9', exact: true })).toHaveAttribute('aria-checked', 'true');
  const waiting = list.getByRole('menuitemradio', { name: 'Notes on wading birds 1 (needs your approval)' });
  await expect(waiting).toContainText('!');
  await expectNoAxeViolations(page);
  await waiting.click();
  await expect(list).toBeHidden();
  await expect(first).toHaveAttribute('aria-selected', 'true');
  await expect(first).toBeInViewport({ ratio: 1 });
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeFocused();
  await expect(page.getByRole('group', { name: 'Approval needed: write_file' })).toBeVisible();
  await expect(allTabs).toHaveAccessibleName('All tabs');

  // The scroll buttons move the strip; at 800×600 the control is still there and clean.
  await page.getByRole('button', { name: 'Scroll tabs right' }).click();
  await expect(first).not.toBeInViewport({ ratio: 1 });
  await expect(allTabs).toHaveAccessibleName('All tabs (one out of view needs your approval)');
  await page.setViewportSize({ width: 800, height: 600 });
  await expect(allTabs).toBeVisible();
  await expectNoAxeViolations(page);
});

test('sidebar rows of open sessions carry the working, approval and question markers, in words too', async ({ page, loom }) => {
  await openInTabs(loom, ['Heron notes', 'Egret notes', 'Stork notes', 'Crane notes']);
  let release!: () => void;
  loom.model.enqueue(WRITE_A);
  await openLoom(page, loom);
  await send(page, 'Write a.txt');
  await expect(page.getByRole('group', { name: 'Approval needed: write_file' })).toBeVisible();
  loom.model.enqueue({ toolCalls: [{ name: 'ask_question', arguments: { question: 'Which bird?' } }] });
  await tabs(page)
    .getByRole('tab', { name: /^Egret notes/ })
    .click();
  await send(page, 'Ask me');
  await expect(page.getByRole('group', { name: 'Question from the assistant' })).toBeVisible();
  loom.model.enqueue({ text: 'Storks fly far.', pauseAfterChunks: 0, resume: new Promise<void>((r) => (release = r)) });
  await tabs(page)
    .getByRole('tab', { name: /^Stork notes/ })
    .click();
  await send(page, 'Tell me');

  const row = (title: string) => sidebarRow(page, title).getByRole('button', { name: new RegExp(`^${title}`) });
  await expect(row('Heron notes')).toHaveAccessibleName(/^Heron notes \(needs your approval\)/);
  await expect(row('Heron notes')).toContainText('!');
  await expect(row('Egret notes')).toHaveAccessibleName(/^Egret notes \(asks you a question\)/);
  await expect(row('Egret notes')).toContainText('?');
  await expect(row('Stork notes')).toHaveAccessibleName(/^Stork notes \(working\)/);
  await expect(row('Stork notes')).toContainText('…');
  await expect(row('Crane notes')).toHaveAccessibleName(/^Crane notes [^(]/);
  await expectNoAxeViolations(page, page.getByRole('complementary', { name: 'Sessions' }));
  release();
  await expect(row('Stork notes')).toHaveAccessibleName(/^Stork notes [^(]/);
});

test('a new approval or question takes the focus, the status line says what it waits for, and the focus goes back to the message box', async ({
  page,
  loom,
}) => {
  loom.model.enqueue(WRITE_A, { toolCalls: [{ name: 'ask_question', arguments: { question: 'Which bird?' } }] }, { text: 'Herons, then.' }, SUMMARY('Birds'));
  await openLoom(page, loom);
  await newSession(page);
  const box = page.getByRole('textbox', { name: 'Message' });
  await send(page, 'Write a.txt');
  const card = page.getByRole('group', { name: 'Approval needed: write_file' });
  await expect(card).toBeFocused();
  await expect(page.getByRole('status').filter({ hasText: 'Waiting for your approval' })).toBeVisible();
  await expect(page.getByText(/Running\s*write_file/)).toHaveCount(0);
  // Enter meant for the message box approves nothing: the card, not its button, has the focus.
  await page.keyboard.press('Enter');
  await expect(card).toBeVisible();

  await card.getByRole('button', { name: 'Allow once' }).focus();
  await page.keyboard.press('Enter');
  const answer = page.getByRole('group', { name: 'Question from the assistant' }).getByRole('textbox', { name: 'Your answer' });
  await expect(answer).toBeFocused();
  await expect(page.getByRole('status').filter({ hasText: 'Waiting for your answer' })).toBeVisible();
  await page.keyboard.type('herons');
  await page.keyboard.press('Enter');
  await expect(transcript(page).getByText('Herons, then.')).toBeVisible();
  await expect(box).toBeFocused();
});

/** A conversation long enough to scroll: `pairs` questions and answers. */
function longConversation(pairs: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: 'You are Loom.' }];
  for (let n = 1; n <= pairs; n++) {
    messages.push({ role: 'user', content: `<user_input>\nQuestion ${n} about herons\n</user_input>` });
    messages.push({ role: 'assistant', content: `Answer ${n}: herons wade.\n\n${'They stand still and wait. '.repeat(8)}` });
  }
  return messages;
}

test('scrolled up, a "Waiting for you" pointer leads down to the approval and gives it the focus', async ({ page, loom }) => {
  loom.store.create({ title: 'Long heron talk', messages: longConversation(30), cwd: loom.projectDir });
  let releaseCall!: () => void;
  loom.model.enqueue({ ...WRITE_A, pauseAfterChunks: 0, resume: new Promise<void>((r) => (releaseCall = r)) });
  await openLoom(page, loom);
  await sidebarRow(page, 'Long heron talk')
    .getByRole('button', { name: /^Long heron talk/ })
    .click();
  await expect(transcript(page).getByText('Answer 30: herons wade.')).toBeVisible();
  await send(page, 'Write a.txt');
  const pointer = page.getByRole('button', { name: 'Waiting for you' });
  // Scrolled up while the model still works: no pointer until something waits for the user.
  await page.keyboard.press('Escape');
  await transcript(page).focus();
  await page.keyboard.press('Home');
  await expect(transcript(page).getByText('Question 1 about herons')).toBeInViewport();
  await expect(pointer).toHaveCount(0);
  releaseCall();
  await expect(pointer).toBeVisible();
  const card = page.getByRole('group', { name: 'Approval needed: write_file' });
  await expect(card).not.toBeInViewport();
  await expectNoAxeViolations(page);
  await pointer.click();
  await expect(card).toBeInViewport();
  await expect(card).toBeFocused();
  await expect(pointer).toHaveCount(0);
});

test('a model server that is down is one banner, updated through its retries, then the advice for the window with Settings', async ({ page, loom }) => {
  await loom.model.close();
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Are you there?');
  const banner = page
    .getByRole('status')
    .or(page.getByRole('alert'))
    .filter({ hasText: /model server/ });
  const down = `Cannot reach the model server at ${loom.model.baseUrl} (connection refused).`;
  await expect(banner).toHaveText(new RegExp(`^${escaped(down)} Attempt 1 of 4 failed; (next try in \\d s|trying again now)\\.$`));
  await expect(banner).toHaveCount(1);
  await expect(banner).toHaveText(/Attempt 3 of 4 failed/);
  await expect(banner).toHaveCount(1);
  await expect(banner).toHaveText(`${down} Start it, or check the server URL in Settings.Open Settings×`);
  await expect(banner).toHaveCount(1);
  await expect(banner).toHaveRole('alert');
  await expect(page.getByText(/--base-url|ollama serve/)).toHaveCount(0);
  await expectNoAxeViolations(page);
  await banner.getByRole('button', { name: 'Open Settings' }).click();
  await expect(page.getByRole('dialog', { name: 'Settings' })).toBeVisible();
});

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

test('at 800×600 the chat header keeps its title and its buttons fold into More, keyboard included', async ({ page, loom }) => {
  await page.setViewportSize({ width: 800, height: 600 });
  loom.store.create({ title: 'Notes on the migration of wading birds', cwd: loom.projectDir });
  await openLoom(page, loom);
  await sidebarRow(page, 'Notes on the migration')
    .getByRole('button', { name: /^Notes on the migration/ })
    .click();
  const title = page.getByRole('heading', { level: 1, name: 'Notes on the migration of wading birds' });
  await expect(title).toBeInViewport({ ratio: 1 });
  expect((await title.boundingBox())?.width).toBeGreaterThan(100);
  await expect(page.getByRole('button', { name: 'Fork', exact: true })).toBeHidden();
  const more = page.getByRole('button', { name: 'More', exact: true });
  await more.focus();
  await page.keyboard.press('Enter');
  const menu = page.getByRole('menu', { name: 'More actions' });
  await expect(menu.getByRole('menuitem')).toHaveText([
    'Compact now…',
    'Fork',
    'Info',
    'Export as JSON (can be imported)',
    'Export as Markdown',
    'Export as HTML',
  ]);
  await expect(menu.getByRole('menuitem', { name: 'Compact now…' })).toBeFocused();
  await expectNoAxeViolations(page);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(menu.getByRole('menuitem', { name: 'Info' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog', { name: 'Session info' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(more).toBeFocused();

  // Wide again, the buttons are back in the header and More is gone.
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(page.getByRole('button', { name: 'Fork', exact: true })).toBeVisible();
  await expect(more).toBeHidden();
});
