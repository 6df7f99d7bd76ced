/**
 * Sync through a hub in the window (docs/DESIGN.md#sync-through-a-hub), against a real
 * PostgreSQL cluster (test/support/postgres.ts) and real browser-mode servers, one per
 * device, each with its own data folder: the settings' "Sync hub", the status line when
 * the hub goes away and comes back, "Share with…", the Team search scope, and a change
 * made on one device showing in another device's open page.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { startBrowserMode, type BrowserMode } from '../../src/server/browser-mode';
import { initHub } from '../../src/core/sync/hub-init';
import { parseHubUrl } from '../../src/core/sync/hub-connection';
import { startTestCluster, type TestCluster } from '../support/postgres';
import { startScriptedServer, type ScriptedServer } from '../support/scripted-server';
import { STATIC_DIR, expect, sessionAction, sidebarRow, test, transcript } from './fixtures';

const ALICE = { name: 'alice', password: 'alice-pw-71c2' };
const BOB = { name: 'bob', password: 'bob-pw-0d4e' };
/** Pauses short enough for a test: a retry within a second of the hub coming back. */
const SYNC_TIMING = { debounceMs: 50, retryFirstMs: 200, retryMaxMs: 1000, pollMs: 60_000 };
const SYNCED = /^Synced \d\d:\d\d$/;

let cluster: TestCluster;

test.beforeAll(async () => {
  cluster = await startTestCluster();
  await initHub(parseHubUrl(cluster.ownerUrl));
  await cluster.createUser(ALICE.name, ALICE.password);
  await cluster.createUser(BOB.name, BOB.password);
});

test.afterAll(async () => {
  await cluster?.destroy();
});

interface Device {
  mode: BrowserMode;
  dataDir: string;
  hubUrl: string;
}

/** The devices a test started; each closed, and its folder removed, after it. */
const devices: Device[] = [];
let model: ScriptedServer | undefined;

test.afterEach(async () => {
  for (const device of devices.splice(0)) {
    await device.mode.close();
    fs.rmSync(device.dataDir, { recursive: true, force: true });
  }
  await model?.close();
  model = undefined;
});

/** A device of `user`: its own data folder and browser-mode server; with `hub`, the hub is in its settings before it starts. */
async function startDevice(
  user: { name: string; password: string },
  options: { hub?: boolean; syncTiming?: Partial<typeof SYNC_TIMING> } = {},
): Promise<Device> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `loom-e2e-sync-${user.name}-`));
  const hubUrl = cluster.url(user.name, user.password);
  if (options.hub) fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ hubUrl }), { mode: 0o600 });
  model ??= await startScriptedServer();
  const mode = await startBrowserMode({
    dataDir,
    projectDir: dataDir,
    staticDir: STATIC_DIR,
    overrides: { baseUrl: model.baseUrl, model: 'gemma4', apiKey: '' },
    env: {},
    syncTiming: { ...SYNC_TIMING, ...options.syncTiming },
  });
  const device = { mode, dataDir, hubUrl };
  devices.push(device);
  return device;
}

async function open(page: Page, device: Device): Promise<void> {
  await page.goto(device.mode.url);
  await expect(page.getByRole('complementary', { name: 'Sessions' })).toBeVisible();
}

const syncStatus = (page: Page) => page.getByRole('complementary', { name: 'Sessions' }).getByRole('status', { name: 'Sync status' });

/** The number in "…: 3 changes queued". */
async function queuedCount(page: Page): Promise<number> {
  const line = (await syncStatus(page).textContent()) ?? '';
  return Number(/(\d+) changes? queued/.exec(line)?.[1] ?? 0);
}

test('setting a hub in Settings syncs the sessions, says Synced, and never shows the password', async ({ page }) => {
  const device = await startDevice(ALICE);
  device.mode.backend.store.create({ title: 'Release checklist', messages: [{ role: 'user', content: 'tag the release' }] });
  await open(page, device);
  await expect(syncStatus(page)).toHaveCount(0); // sync is off: no line

  await page.getByRole('button', { name: 'Settings' }).click();
  const settings = page.getByRole('dialog', { name: 'Settings' });
  await settings.getByRole('textbox', { name: /Hub URL/ }).fill(device.hubUrl);
  await settings.getByRole('button', { name: 'Save' }).click();
  await expect(syncStatus(page)).toHaveText(SYNCED);

  const onHub = await cluster.admin(`SELECT title FROM loom.sessions WHERE owner = 'alice'`);
  expect(onHub.rows).toEqual([{ title: 'Release checklist' }]);

  await page.getByRole('button', { name: 'Settings' }).click();
  const url = settings.getByRole('textbox', { name: /Hub URL/ });
  await expect(url).toHaveValue(`postgres://alice:***@127.0.0.1:${cluster.port}/loom`);
  await expect(settings.getByRole('region', { name: 'Sync hub' }).getByRole('status', { name: 'Sync status' })).toHaveText(SYNCED);
  expect(await page.content()).not.toContain(ALICE.password);

  // A wrong URL is refused with one line, and the saved one stays.
  await url.fill('postgres://alice@hub.example.com/loom?sslmode=disable');
  await settings.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText(/not on this machine, so Loom needs TLS/)).toBeVisible();
  const saved = JSON.parse(fs.readFileSync(path.join(device.dataDir, 'settings.json'), 'utf8')) as { hubUrl: string };
  expect(saved.hubUrl).toBe(device.hubUrl);
});

test('with the hub stopped the status says unreachable and counts the queued changes; back, it syncs them', async ({ page }) => {
  const device = await startDevice(ALICE, { hub: true });
  const meta = device.mode.backend.store.create({ title: 'Offline draft' });
  await open(page, device);
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('button', { name: 'Sync now' }).click();
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(syncStatus(page)).toHaveText(SYNCED);

  await cluster.stop();
  try {
    await sessionAction(page, 'Offline draft', 'Rename…');
    await page.getByRole('textbox', { name: 'Title' }).fill('Offline draft 2');
    await page.getByRole('button', { name: 'Rename' }).click();
    await expect(syncStatus(page)).toHaveText(/^Hub unreachable \(connection refused\): \d+ changes? queued$/);
    const before = await queuedCount(page);
    expect(before).toBeGreaterThan(0);

    await sessionAction(page, 'Offline draft 2', 'Rename…');
    await page.getByRole('textbox', { name: 'Title' }).fill('Offline draft 3');
    await page.getByRole('button', { name: 'Rename' }).click();
    await expect.poll(() => queuedCount(page)).toBeGreaterThan(before);
  } finally {
    await cluster.start();
  }
  await expect(syncStatus(page)).toHaveText(SYNCED);
  const onHub = await cluster.admin(`SELECT title FROM loom.sessions WHERE id = $1`, [meta.id]);
  expect(onHub.rows).toEqual([{ title: 'Offline draft 3' }]);
});

test('"Share with…" shares a session with a team: a teammate gets it and finds it in the Team search scope', async ({ page, browser }) => {
  await cluster.admin(`INSERT INTO loom.team_members VALUES ('core', 'alice'), ('core', 'bob') ON CONFLICT DO NOTHING`);
  const alice = await startDevice(ALICE, { hub: true });
  const shared = alice.mode.backend.store.create({
    title: 'Flaky deploy fix',
    messages: [{ role: 'user', content: 'the canary rollout needs a longer bake time' }],
  });
  const bob = await startDevice(BOB, { hub: true });
  await open(page, alice);
  await expect(syncStatus(page)).toHaveText(SYNCED);

  await sessionAction(page, 'Flaky deploy fix', 'Share with…');
  const dialog = page.getByRole('dialog', { name: 'Share with a team' });
  await dialog.getByRole('textbox', { name: 'Team' }).fill('no such team!');
  await dialog.getByRole('button', { name: 'Share' }).click();
  await expect(dialog.getByRole('status')).toHaveText(/team name is letters, digits/);
  await dialog.getByRole('textbox', { name: 'Team' }).fill('ghosts'); // alice is not in it
  await dialog.getByRole('button', { name: 'Share' }).click();
  await expect(dialog.getByRole('status')).toHaveText('The hub did not share it: you are not a member of the team "ghosts" there.');
  await dialog.getByRole('textbox', { name: 'Team' }).fill('core');
  await dialog.getByRole('button', { name: 'Share' }).click();
  await expect(dialog.getByRole('status')).toHaveText('Shared with the team "core".');
  await dialog.getByRole('button', { name: 'Close' }).click();

  // Bob's device hears of the push (NOTIFY), pulls it, and his open page lists it.
  const bobPage = await browser.newPage();
  await open(bobPage, bob);
  await expect(sidebarRow(bobPage, 'Flaky deploy fix')).toBeVisible({ timeout: 5000 });
  expect(bob.mode.backend.store.getMeta(shared.id).title).toBe('Flaky deploy fix');

  const sidebar = bobPage.getByRole('complementary', { name: 'Sessions' });
  await sidebar.getByRole('searchbox', { name: 'Search sessions' }).fill('canary bake');
  await sidebar.getByRole('radio', { name: 'Team' }).check();
  const hit = sidebarRow(bobPage, 'Flaky deploy fix');
  await expect(hit).toContainText('alice ·');
  await hit.getByRole('button', { name: /^Flaky deploy fix/ }).click();
  await expect(transcript(bobPage).getByText('the canary rollout needs a longer bake time')).toBeVisible();
  await bobPage.close();
});

test("another device's rename and new message reach the open page within seconds", async ({ page }) => {
  const laptop = await startDevice(ALICE, { hub: true });
  const desktop = await startDevice(ALICE, { hub: true });
  const meta = laptop.mode.backend.store.create({ title: 'Shared plan', messages: [{ role: 'user', content: 'first' }] });
  await laptop.mode.backend.sync.syncNow();
  await open(page, desktop);
  await expect(sidebarRow(page, 'Shared plan')).toBeVisible({ timeout: 5000 });

  await laptop.mode.backend.handlers['sessions.rename']({ id: meta.id, title: 'Shared plan, renamed on the laptop' });
  await expect(sidebarRow(page, 'Shared plan, renamed on the laptop')).toBeVisible({ timeout: 5000 });

  // With the session open in a tab, a turn on the laptop shows in it.
  await sidebarRow(page, 'Shared plan, renamed on the laptop')
    .getByRole('button', { name: /^Shared plan/ })
    .click();
  await expect(transcript(page).getByText('first')).toBeVisible();
  model?.enqueue({ text: 'Noted on the laptop.' }, { text: 'Plan' });
  await laptop.mode.backend.handlers['chat.send']({ sessionId: meta.id, text: 'second' });
  await expect(sidebarRow(page, 'Shared plan, renamed on the laptop')).toContainText('3 messages', { timeout: 5000 });
  await expect(transcript(page).getByText('Noted on the laptop.')).toBeVisible({ timeout: 5000 });
});

test('a Team hit not on this device yet says so under its owner; opening it syncs, then opens it', async ({ page }) => {
  await cluster.admin(`INSERT INTO loom.team_members VALUES ('ops', 'alice'), ('ops', 'bob') ON CONFLICT DO NOTHING`);
  // Bob's device syncs on start, then waits: announcements and changes only after a minute.
  const bob = await startDevice(BOB, { hub: true, syncTiming: { debounceMs: 60_000 } });
  await open(page, bob);
  await expect(syncStatus(page)).toHaveText(SYNCED);

  const alice = await startDevice(ALICE, { hub: true });
  const meta = alice.mode.backend.store.create({ title: 'Pager rotation', messages: [{ role: 'user', content: 'who holds the pager over the holidays' }] });
  await alice.mode.backend.handlers['sessions.share']({ id: meta.id, team: 'ops' });

  const sidebar = page.getByRole('complementary', { name: 'Sessions' });
  await sidebar.getByRole('radio', { name: 'Team' }).check();
  await sidebar.getByRole('searchbox', { name: 'Search sessions' }).fill('pager holidays');
  const hit = sidebarRow(page, 'Pager rotation');
  await expect(hit).toContainText('alice ·');
  await expect(hit).toContainText('not on this device yet');
  expect(() => bob.mode.backend.store.getMeta(meta.id)).toThrow();

  await hit.getByRole('button', { name: /^Pager rotation/ }).click();
  await expect(transcript(page).getByText('who holds the pager over the holidays')).toBeVisible();
  await expect(hit).not.toContainText('not on this device yet');
});
