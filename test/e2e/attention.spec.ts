/**
 * Attention: every open tab shows when it is working or waits for the user (in words for
 * screen readers, a sign for the eye); a turn that ends or asks for approval in a tab not in
 * front raises a system notification (the real Notification API, recorded by a wrapper);
 * notifications are offered once, politely; the unsent draft of each tab survives a reload.
 */
import type { Page } from '@playwright/test';
import { SUMMARY, expect, openLoom, send, sidebarRow, test, transcript, type LoomHarness } from './fixtures';

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
  loom.store.create({ title: 'Heron notes', cwd: loom.projectDir });
  loom.store.create({ title: 'Egret notes', cwd: loom.projectDir });
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
