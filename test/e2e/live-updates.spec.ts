/**
 * Live everywhere (docs/DESIGN.md#who-may-change-a-session, #live-everywhere): the `loom` command run in the same data folder
 * as an open window. What it renames, archives, imports or deletes shows in the page
 * within a second, without a reload; a tab whose session it deletes closes, saying so;
 * and it cannot change a session while a turn of the window runs in it (between turns it can).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import type { ChatMessage } from '../../src/shared/types';
import { runLoom } from '../cli/run-loom';
import { nth } from '../support/elements';
import { SUMMARY, expect, newSession, openLoom, send, sidebarRow, test, transcript, type LoomHarness } from './fixtures';

const CONVERSATION: ChatMessage[] = [
  { role: 'system', content: 'You are Loom.' },
  { role: 'user', content: '<user_input>\nHow do herons fish?\n</user_input>' },
  { role: 'assistant', content: 'Herons stand still and strike fast.' },
];

/** Bounds for a loaded machine; the latency itself is measured and reported. */
const SHOWS_WITHIN = { timeout: 5_000 };

const tabs = (page: Page) => page.getByRole('tablist', { name: 'Open sessions' }).getByRole('tab');

function seed(loom: LoomHarness, title: string) {
  return loom.store.create({ title, messages: CONVERSATION, model: 'gemma4', cwd: loom.projectDir });
}

/** `loom ARGS --data-dir <the page's data folder>`, and when it exited. */
async function terminal(loom: LoomHarness, ...args: string[]) {
  const run = await runLoom([...args, '--data-dir', loom.dataDir]);
  return { ...run, exitedAt: Date.now() };
}

/**
 * Waits (checking every 25 ms, not with expect's growing back-off, which would be
 * measured too) until the sidebar shows `count` rows named `title`; returns how long after
 * the command's exit that was.
 */
async function shownAfter(exitedAt: number, page: Page, title: string, count: number): Promise<number> {
  await expect.poll(() => sidebarRow(page, title).count(), { ...SHOWS_WITHIN, intervals: [25] }).toBe(count);
  return Date.now() - exitedAt;
}

test('what `loom` renames, archives, imports and deletes shows in the open page within a second', async ({ page, loom }) => {
  const herons = seed(loom, 'Herons');
  seed(loom, 'Egrets');
  await openLoom(page, loom);
  await expect(sidebarRow(page, 'Herons')).toBeVisible();
  const latencies: Record<string, number> = {};

  const renamed = await terminal(loom, '--rename', herons.id, 'Heron field notes');
  expect(renamed.code).toBe(0);
  latencies.rename = await shownAfter(renamed.exitedAt, page, 'Heron field notes', 1);

  const file = path.join(loom.projectDir, 'herons.json');
  fs.writeFileSync(file, (await terminal(loom, '--export', herons.id)).stdout);
  const imported = await terminal(loom, '--import', file);
  expect(imported.code).toBe(0);
  latencies.import = await shownAfter(imported.exitedAt, page, 'Heron field notes', 2);

  const archived = await terminal(loom, '--archive', herons.id);
  expect(archived.code).toBe(0);
  latencies.archive = await shownAfter(archived.exitedAt, page, 'Heron field notes', 1);

  const deleted = await terminal(loom, '--delete', imported.stdout.trim(), '--yes');
  expect(deleted.code).toBe(0);
  latencies.delete = await shownAfter(deleted.exitedAt, page, 'Heron field notes', 0);
  await expect(sidebarRow(page, 'Egrets')).toBeVisible();

  // The bound is a second; the waits above allow 5 s for a loaded machine, and the figures
  // are reported (bench/live.ts measures the same path without a browser).
  test.info().annotations.push({ type: 'latency-ms', description: JSON.stringify(latencies) });
  console.log(`live-updates latency after the command exited (ms): ${JSON.stringify(latencies)}`);
});

test('a fork, an archive and an unarchive made by `loom` (its lifecycle commands, without the agent) show in the open page', async ({ page, loom }) => {
  const egrets = seed(loom, 'Egrets');
  await openLoom(page, loom);
  await expect(sidebarRow(page, 'Egrets')).toHaveCount(1);

  const forked = await terminal(loom, '--fork', egrets.id);
  expect(forked).toMatchObject({ code: 0, stderr: '' });
  // The fork joins the original's row (docs/DESIGN.md#the-sidebar): one row, two branches.
  const count = sidebarRow(page, 'Egrets').getByRole('button', { name: /^2 branches of Egrets/ });
  await expect(count).toBeVisible(SHOWS_WITHIN);
  await expect(sidebarRow(page, 'Egrets')).toHaveCount(1);
  expect(loom.store.getMeta(forked.stdout.trim()).parent_id).toBe(egrets.id);

  expect((await terminal(loom, '--archive', egrets.id)).code).toBe(0);
  await expect(count).toHaveCount(0, SHOWS_WITHIN);
  await expect(sidebarRow(page, 'Egrets')).toHaveCount(1);
  expect((await terminal(loom, '--unarchive', egrets.id)).code).toBe(0);
  await expect(count).toBeVisible(SHOWS_WITHIN);
  expect(loom.store.getMeta(egrets.id).archived).toBe(false);
});

test('a tab whose session is deleted by `loom` closes and says so', async ({ page, loom }) => {
  const herons = seed(loom, 'Herons');
  seed(loom, 'Egrets');
  await openLoom(page, loom);
  for (const title of ['Herons', 'Egrets']) {
    await sidebarRow(page, title)
      .getByRole('button', { name: new RegExp(title) })
      .first()
      .click();
    await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
  }
  // A rename from the terminal reaches the open tab's label and heading too.
  const egrets = loom.store.list().find((s) => s.title === 'Egrets')!;
  expect((await terminal(loom, '--rename', egrets.id, 'Egret notes')).code).toBe(0);
  await expect(page.getByRole('heading', { level: 1, name: 'Egret notes' })).toBeVisible(SHOWS_WITHIN);
  await expect(tabs(page).filter({ hasText: 'Egret notes' })).toHaveCount(1);

  await tabs(page).filter({ hasText: 'Herons' }).click();
  await expect(transcript(page)).toContainText('Herons stand still');

  // Only shown, never sent to: the window holds no lease, so the terminal may delete it.
  const deleted = await terminal(loom, '--delete', herons.id, '--yes');
  expect(deleted).toMatchObject({ code: 0, stderr: '' });
  await expect(page.getByRole('alert').filter({ hasText: 'The session "Herons" was deleted elsewhere; its tab was closed.' })).toBeVisible(SHOWS_WITHIN);
  await expect(tabs(page)).toHaveCount(1);
  await expect(tabs(page).first()).toHaveText('Egret notes');
  await expect(page.getByRole('heading', { level: 1, name: 'Egret notes' })).toBeVisible();
  await expect(sidebarRow(page, 'Herons')).toHaveCount(0);
});

test('`loom` cannot rename, archive or delete the session while a turn of the window runs in it', async ({ page, loom }) => {
  let release = () => {};
  const resume = new Promise((resolve) => (release = () => resolve(undefined)));
  loom.model.enqueue({ text: 'Herons stand still and strike fast.', pauseAfterChunks: 2, resume }, SUMMARY('Heron fishing'));
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'How do herons fish?');
  await expect(transcript(page).getByRole('article', { name: 'Assistant' })).toContainText('Herons');
  const session = nth(loom.store.list(), 0);
  const before = loom.store.getMeta(session.id);

  try {
    for (const args of [
      ['--rename', session.id, 'Stolen'],
      ['--archive', session.id],
      ['--delete', session.id, '--yes'],
    ]) {
      const run = await terminal(loom, ...args);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`loom: Session ${session.id} is in use by pid ${process.pid}.\n`);
    }
  } finally {
    release();
  }
  await expect(transcript(page).getByRole('article', { name: 'Assistant' })).toContainText('strike fast.');
  expect(loom.store.getMeta(session.id)).toMatchObject({ id: before.id, title: before.title, archived: false });
  await expect(tabs(page)).toHaveCount(1);
  await expect(page.getByRole('alert')).toHaveCount(0);
});

test('between turns of the window `loom` renames and deletes its session: the open tab shows the new title, then says it was deleted', async ({
  page,
  loom,
}) => {
  loom.model.enqueue({ text: 'Herons stand still.' }, SUMMARY('Heron fishing'));
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'How do herons fish?');
  await expect(transcript(page).getByRole('article', { name: 'Assistant' })).toContainText('Herons stand still.');
  const session = nth(loom.store.list(), 0);

  expect(await terminal(loom, '--rename', session.id, 'Heron field notes')).toMatchObject({ code: 0, stderr: '' });
  await expect(page.getByRole('heading', { level: 1, name: 'Heron field notes' })).toBeVisible(SHOWS_WITHIN);
  await expect(tabs(page).filter({ hasText: 'Heron field notes' })).toHaveCount(1);

  expect(await terminal(loom, '--delete', session.id, '--yes')).toMatchObject({ code: 0, stderr: '' });
  await expect(page.getByRole('alert').filter({ hasText: 'The session "Heron field notes" was deleted elsewhere; its tab was closed.' })).toBeVisible(
    SHOWS_WITHIN,
  );
  await expect(tabs(page).filter({ hasText: 'Heron field notes' })).toHaveCount(0);
  await expect(sidebarRow(page, 'Heron field notes')).toHaveCount(0);
});
