/**
 * Every flow of the desktop app's card, in the real window: launching on a data folder
 * the `loom` command wrote, the sidebar's archive and fork actions, forked sessions side
 * by side in tabs, the info dialog's compaction count and usage, deleting through the
 * modal, and drag-export handing the OS a file equal to `loom --export`. Skipped, with the
 * reason, where the app cannot start (./launch.ts); run on the CI runners.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { SessionStore } from '../../../src/core/store/session-store';
import type { ChatMessage } from '../../../src/shared/types';
import { nth } from '../../support/elements';
import { sessionAction, sidebarRow } from '../fixtures';
import { closeDesktop, launchDesktop, root, skipWithoutElectron, type Desktop } from './launch';

skipWithoutElectron();

const CONVERSATION: ChatMessage[] = [
  { role: 'system', content: 'You are Loom.' },
  { role: 'user', content: 'How do herons fish?' },
  { role: 'assistant', content: 'Herons stand still and strike fast.' },
];

let desktop: Desktop | undefined;
test.afterEach(() => closeDesktop(desktop));

/** Sessions written before launch, as the `loom` command would have left them. */
function seed(...titles: string[]): (dataDir: string) => void {
  return (dataDir) => {
    const store = SessionStore.open(dataDir);
    try {
      for (const title of titles) store.create({ title, messages: CONVERSATION, model: 'gemma4', cwd: dataDir });
    } finally {
      store.close();
    }
  };
}

function loom(dataDir: string, ...args: string[]): string {
  return execFileSync(process.execPath, [`${root}/bin/loom.js`, '--data-dir', dataDir, ...args], { encoding: 'utf8' });
}

test('launching shows the sessions the loom command made', async () => {
  desktop = await launchDesktop(seed('Made in the terminal'));
  await expect(sidebarRow(desktop.window, 'Made in the terminal')).toBeVisible();
  expect(loom(desktop.dataDir, '--list-sessions')).toContain('Made in the terminal');
});

test('archive hides a session and unarchive brings it back; fork opens beside its parent in a tab', async () => {
  desktop = await launchDesktop(seed('Old project', 'Herons'));
  const { window } = desktop;
  await sessionAction(window, 'Old project', 'Archive');
  await expect(sidebarRow(window, 'Old project')).toHaveCount(0);
  expect(
    JSON.parse(loom(desktop.dataDir, '--list-sessions', '--include-archived', '--json')).find((s: { title: string }) => s.title === 'Old project').archived,
  ).toBe(true);
  await window.getByRole('switch', { name: 'Show archived' }).check();
  await sessionAction(window, 'Old project', 'Unarchive');
  await window.getByRole('switch', { name: 'Show archived' }).uncheck();
  await expect(sidebarRow(window, 'Old project')).toBeVisible();

  await sessionAction(window, 'Herons', 'Fork');
  const tabs = window.getByRole('tablist', { name: 'Open sessions' }).getByRole('tab');
  await expect(tabs).toHaveCount(1);
  await expect(window.getByRole('log', { name: 'Transcript' })).toContainText('Herons stand still');
});

test('several forks stay open in their own tabs, each with its own transcript', async () => {
  desktop = await launchDesktop(seed('Herons'));
  const { window } = desktop;
  await sidebarRow(window, 'Herons')
    .getByRole('button', { name: /Herons/ })
    .first()
    .click();
  await sessionAction(window, 'Herons', 'Fork');
  await sessionAction(window, 'Herons', 'Fork');
  const tabs = window.getByRole('tablist', { name: 'Open sessions' }).getByRole('tab');
  await expect(tabs).toHaveCount(3);
  for (let i = 0; i < 3; i++) {
    await tabs.nth(i).click();
    await expect(tabs.nth(i)).toHaveAttribute('aria-selected', 'true');
    await expect(window.getByRole('log', { name: 'Transcript' })).toContainText('Herons stand still');
  }
});

test('the info dialog shows the compaction count and the cumulative usage', async () => {
  desktop = await launchDesktop((dataDir) => {
    const store = SessionStore.open(dataDir);
    try {
      const { id } = store.create({ title: 'Long talk', messages: CONVERSATION, model: 'gemma4', cwd: dataDir });
      store.recordUsage(id, 'chat', { prompt_tokens: 1200, completion_tokens: 300, cost_usd: 0 });
      store.recordCompaction(id, {
        messages: [nth(CONVERSATION, 0), { role: 'user', content: 'Summary: herons fish by standing still.' }],
        compaction: { at: new Date().toISOString(), before_tokens: 5000, after_tokens: 800, summary: 'herons fish by standing still' },
        usage: { prompt_tokens: 321, completion_tokens: 45, cost_usd: 0 },
      });
    } finally {
      store.close();
    }
  });
  const { window } = desktop;
  await sessionAction(window, 'Long talk', 'Info');
  const info = window.getByRole('dialog', { name: 'Session info' });
  await expect(info).toContainText('Compactions1');
  await expect(info.getByRole('table', { name: 'Usage' }).getByRole('row', { name: /^compaction/ })).toHaveText(/compaction\s*1\s*321\s*45/);
  await expect(info.getByRole('table', { name: 'Usage' }).getByRole('row', { name: /^chat/ })).toHaveText(/chat\s*1\s*1,200\s*300/);
});

test('delete asks in a modal, and only Delete removes the session from the store', async () => {
  desktop = await launchDesktop(seed('Scratch'));
  const { window } = desktop;
  await sessionAction(window, 'Scratch', 'Delete…');
  const modal = window.getByRole('dialog', { name: 'Delete session?' });
  await modal.getByRole('button', { name: 'Cancel' }).click();
  await expect(sidebarRow(window, 'Scratch')).toBeVisible();
  await sessionAction(window, 'Scratch', 'Delete…');
  await modal.getByRole('button', { name: 'Delete' }).click();
  await expect(sidebarRow(window, 'Scratch')).toHaveCount(0);
  expect(loom(desktop.dataDir, '--list-sessions', '--include-archived')).not.toContain('Scratch');
});

test('drag-export hands the OS a file equal to loom --export', async () => {
  desktop = await launchDesktop(seed('Export me'));
  const { app, window } = desktop;
  // Record what the main process hands to the OS's drag instead of starting one.
  await app.evaluate(({ webContents }) => {
    const dragged: string[] = [];
    (globalThis as { __dragged?: string[] }).__dragged = dragged;
    for (const contents of webContents.getAllWebContents()) contents.startDrag = (item) => void dragged.push(item.file);
  });
  await sidebarRow(window, 'Export me').evaluate((row) => {
    const dom = globalThis as unknown as { DataTransfer: new () => object; DragEvent: new (type: string, init: object) => Event };
    row.dispatchEvent(new dom.DragEvent('dragstart', { dataTransfer: new dom.DataTransfer(), bubbles: true }));
  });
  await expect.poll(() => app.evaluate(() => (globalThis as { __dragged?: string[] }).__dragged?.length ?? 0)).toBe(1);
  const file = nth(await app.evaluate(() => (globalThis as { __dragged?: string[] }).__dragged ?? []), 0);
  const meta = nth(JSON.parse(loom(desktop.dataDir, '--list-sessions', '--json')) as { id: string }[], 0);
  const withoutTimestamp = (text: string) => text.replace(/"exported_at": "[^"]+"/, '');
  expect(fs.existsSync(file)).toBe(true);
  expect(withoutTimestamp(fs.readFileSync(file, 'utf8'))).toBe(withoutTimestamp(loom(desktop.dataDir, '--export', meta.id)));
});
