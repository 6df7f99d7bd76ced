/**
 * "Import from…" in the sidebar (docs/DESIGN.md#importing-from-other-agents): the dialog
 * offers each source with its default location, imports another agent's session files from
 * a folder with a progress bar and the summary `loom --import-from` prints, the sessions
 * appear in the sidebar as they are written and open with their messages, importing again
 * adds nothing, a bad path is one line with nothing imported, and a large folder is searched
 * without following a symbolic link out of it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { CLAUDE_SESSION, claudeBranch, claudeMain, claudeSidechain, codexRollout, jsonl, writeFile } from '../import/fixtures';
import { expandFamilies, expect, openLoom, sidebarRow, test, transcript } from './fixtures';

/** A Claude Code projects folder of the test's own: a session with a rewind and a malformed line, and a sub-agent file. */
function claudeProjects(): { root: string; file: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-e2e-claude-'));
  const file = writeFile(path.join(root, '-home-ada-lexer', `${CLAUDE_SESSION}.jsonl`), jsonl([...claudeMain(), ...claudeBranch()]));
  writeFile(path.join(root, '-home-ada-lexer', 'agent-c0ffee01.jsonl'), jsonl(claudeSidechain()));
  return { root, file };
}

const importDialog = (page: Page) => page.getByRole('dialog', { name: 'Import from another agent' });

async function openImportDialog(page: Page) {
  await page.getByRole('button', { name: 'Import from…' }).click();
  await expect(importDialog(page).getByRole('combobox', { name: 'Source' })).toBeFocused();
}

async function importFrom(page: Page, folder: string) {
  const dialog = importDialog(page);
  await dialog.getByRole('textbox', { name: /^Folder or file/ }).fill(folder);
  await dialog.getByRole('button', { name: 'Import' }).click();
}

test('imports a folder of Claude Code sessions: progress, the summary, the sessions in the sidebar; again adds nothing', async ({ page, loom }) => {
  const { root, file } = claudeProjects();
  try {
    await openLoom(page, loom);
    await expect(page.getByText('No sessions yet.')).toBeVisible();
    await openImportDialog(page);
    const dialog = importDialog(page);
    await expect(dialog.getByRole('textbox', { name: /^Folder or file/ })).toHaveAttribute('placeholder', path.join(os.homedir(), '.claude/projects'));
    await expect(dialog.getByText(`Leave it empty to read ${path.join(os.homedir(), '.claude/projects')}.`)).toBeVisible();

    await importFrom(page, root);
    const progress = dialog.getByRole('progressbar', { name: 'Import progress' });
    await expect(progress).toHaveAttribute('aria-valuemax', '2');
    await expect(progress).toHaveAttribute('aria-valuenow', '2');
    await expect(dialog.getByText('2 of 2 files')).toBeVisible();
    await expect(dialog.getByRole('status')).toContainText(
      `Imported from claude-code (${root}): 2 files (2 new sessions, 0 grown, 1 new fork, 12 messages added); files skipped: 0 unchanged, 1 refused (listed above)`,
    );
    await expect(dialog.getByRole('list', { name: 'Refused' }).getByRole('listitem')).toHaveText([`${file}:8: not valid JSON, skipped`]);

    // Live: the sidebar shows them without a reload, behind the dialog, folded into one row (the sub-agent's parent_id names its session).
    await expect(sidebarRow(page, 'Sub-agent c0ffee01')).toHaveCount(1);
    await expect(sidebarRow(page, 'Sub-agent c0ffee01')).toContainText('3 branches');
    expect(loom.store.list()).toHaveLength(3);

    await importFrom(page, root);
    await expect(dialog.getByRole('status')).toHaveText(
      `Imported from claude-code (${root}): 2 files (0 new sessions, 0 grown, 0 new forks, 0 messages added); files skipped: 2 unchanged.`,
    );
    expect(loom.store.list()).toHaveLength(3);

    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('button', { name: 'Import from…' })).toBeFocused();
    await sidebarRow(page, 'Sub-agent c0ffee01')
      .getByRole('button', { name: /^Sub-agent c0ffee01/ })
      .click();
    await expect(transcript(page).getByRole('article', { name: 'You' })).toContainText('Explore the tokenizer tables');
    await expect(transcript(page).getByRole('article', { name: 'Assistant' })).toContainText('The tables live in tables.ts.');
    await expandFamilies(page);
    await expect(sidebarRow(page, 'Lexer zebra fix')).toHaveCount(2);
    await sidebarRow(page, 'Lexer zebra fix')
      .first()
      .getByRole('button', { name: /^Lexer zebra fix/ })
      .click();
    await expect(transcript(page).getByText('Fixed: quoted zebra tokens are no longer skipped.')).toBeVisible();
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a bad path is one line and imports nothing; opencode and goose offer their default locations', async ({ page, loom }) => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-e2e-empty-'));
  try {
    await openLoom(page, loom);
    await openImportDialog(page);
    const dialog = importDialog(page);

    const missing = path.join(empty, 'no-such-folder');
    await importFrom(page, missing);
    await expect(dialog.getByRole('alert')).toHaveText(`Nothing to import: ${missing} does not exist.`);
    await importFrom(page, empty);
    await expect(dialog.getByRole('alert')).toHaveText(`Nothing to import: no claude-code session files in ${empty}.`);
    await importFrom(page, 'projects');
    await expect(dialog.getByRole('alert')).toHaveText('Give the full path of the folder or file to import from (or one starting with ~/), not projects.');
    await expect(dialog.getByRole('progressbar')).toHaveCount(0);
    expect(loom.store.list()).toEqual([]);

    for (const [source, location] of [
      ['opencode', '.local/share/opencode'],
      ['goose', '.local/share/goose/sessions'],
    ] as const) {
      await dialog.getByRole('combobox', { name: 'Source' }).selectOption(source);
      await expect(
        dialog.getByText(`Leave it empty to read ${path.join(os.homedir(), location)}. Files and databases are only read, never changed.`),
      ).toBeVisible();
      await expect(dialog.getByRole('button', { name: 'Import' })).toBeEnabled();
    }

    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('button', { name: 'Import from…' })).toBeFocused();
  } finally {
    fs.rmSync(empty, { recursive: true, force: true });
  }
});

test('a large folder such as a home folder: the session deep inside is imported, nothing through a symbolic link out of it', async ({ page, loom }) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-e2e-home-'));
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-e2e-outside-'));
  try {
    for (let a = 0; a < 40; a++) for (let b = 0; b < 25; b++) writeFile(path.join(home, `project-${a}`, `notes-${b}`, 'README.md'), 'notes\n');
    writeFile(path.join(home, 'project-39', 'notes-24', '.claude', `${CLAUDE_SESSION}.jsonl`), jsonl(claudeMain()));
    const elsewhere = writeFile(path.join(outside, 'agent-c0ffee01.jsonl'), jsonl(claudeSidechain()));
    fs.symlinkSync(outside, path.join(home, 'project-0', 'linked-folder'));
    fs.symlinkSync(elsewhere, path.join(home, 'project-1', 'linked.jsonl'));

    await openLoom(page, loom);
    await openImportDialog(page);
    await importFrom(page, home);
    await expect(importDialog(page).getByRole('status')).toContainText(`Imported from claude-code (${home}): 1 file (1 new session,`);
    await expect(sidebarRow(page, 'Lexer zebra fix')).toHaveCount(1);
    await expect(sidebarRow(page, 'Sub-agent c0ffee01')).toHaveCount(0);
    expect(loom.store.list().map((s) => s.title)).toEqual(['Lexer zebra fix']);
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  }
});

/** Codex's sessions folder with `count` rollouts, each a thread of its own. */
function codexSessions(count: number): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-e2e-codex-'));
  for (let i = 0; i < count; i++) {
    const lines = (codexRollout() as { type: string; payload: Record<string, unknown> }[]).map((line) =>
      line.type === 'session_meta' ? { ...line, payload: { ...line.payload, id: `thread-${i}` } } : line,
    );
    writeFile(path.join(root, '2025', '12', '01', `rollout-2025-12-01T09-00-00-${String(i).padStart(4, '0')}.jsonl`), jsonl(lines));
  }
  return root;
}

test('a long import: the bar follows each file read, in order, up to the total', async ({ page, loom }) => {
  const files = 300;
  const root = codexSessions(files);
  try {
    await openLoom(page, loom);
    await openImportDialog(page);
    await importDialog(page).getByRole('combobox', { name: 'Source' }).selectOption('codex');
    // Every value the bar showed, frame by frame (in the page; this Node project has no DOM types).
    await page.evaluate(() => {
      const seen: string[] = [];
      const dom = globalThis as unknown as {
        document: { querySelector(s: string): { getAttribute(a: string): string | null } | null };
        requestAnimationFrame(callback: () => void): void;
      };
      const tick = () => {
        const now = dom.document.querySelector('[role="progressbar"]')?.getAttribute('aria-valuenow');
        if (now && seen.at(-1) !== now) seen.push(now);
        dom.requestAnimationFrame(tick);
      };
      Object.assign(globalThis, { progressSeen: seen });
      tick();
    });
    await importFrom(page, root);
    await expect(importDialog(page).getByRole('status')).toContainText(`Imported from codex (${root}): ${files} files (${files} new sessions`);
    await expect(importDialog(page).getByRole('progressbar', { name: 'Import progress' })).toHaveAttribute('aria-valuenow', String(files));
    const seen = await page.evaluate<string[]>('globalThis.progressSeen');
    const shown = seen.map(Number);
    expect(
      shown.some((done) => done > 0 && done < files),
      `values shown: ${seen.join(', ')}`,
    ).toBe(true);
    expect(shown).toEqual([...shown].sort((a, b) => a - b));
    expect(loom.store.list()).toHaveLength(files);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
