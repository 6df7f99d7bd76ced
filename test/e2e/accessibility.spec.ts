/**
 * Accessibility: an axe-core scan of every screen and dialog, in the light and the dark
 * theme, reports no violation; every control has an accessible name; and a keyboard-only
 * flow reaches every step with the focus visible and returned after each dialog.
 *
 * To scan a new screen or dialog, add one entry to SCREENS: how to get there from a
 * freshly opened Loom, and which part of the page it is.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import type { ChatMessage } from '../../src/shared/types';
import { CLAUDE_SESSION, claudeBranch, claudeMain, jsonl, writeFile } from '../import/fixtures';
import { nth } from '../support/elements';
import { PNG_1X1, PNG_URL } from '../support/images';
import { axeViolations } from './axe';
import { SUMMARY, expect, newSession, openLoom, send, sessionAction, sidebarRow, test, transcript, type LoomHarness } from './fixtures';

const CONVERSATION: ChatMessage[] = [
  { role: 'system', content: 'You are Loom.' },
  { role: 'user', content: '<user_input>\nRead the notes and show me the loop\n</user_input>' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"notes.md"}' } }] },
  { role: 'tool', tool_call_id: 'c1', content: '<tool_result name="read_file">\n1: hello\n</tool_result>' },
  {
    role: 'assistant',
    content:
      'The notes say [hello](https://example.com). The loop:\n\n```ts\nfor (const note of notes) {\n  console.log(`note: ${note}`); // each one\n}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |',
  },
];

/** A session with code, a link, a table and tool cards, open in a tab. */
async function openNotes(page: Page, loom: LoomHarness): Promise<void> {
  loom.store.create({ title: 'Notes', messages: CONVERSATION, cwd: loom.projectDir });
  await openLoom(page, loom);
  await sidebarRow(page, 'Notes')
    .getByRole('button', { name: /^Notes/ })
    .click();
  await expect(transcript(page).getByText('The loop:')).toBeVisible();
}

/** A new session whose model asks to run a tool: the approval card waits. */
async function pendingApproval(page: Page, loom: LoomHarness): Promise<void> {
  loom.model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'notes.md', content: 'hello\n' } }] }, { text: 'Done.' }, SUMMARY('Writing notes'));
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Write the notes');
  await expect(page.getByRole('group', { name: 'Approval needed: write_file' })).toBeVisible();
}

interface Screen {
  name: string;
  /** From a fresh data folder to the screen, ready to scan. */
  open(page: Page, loom: LoomHarness): Promise<void>;
  /** The part to scan (a dialog, a menu); the whole page when absent. */
  scope?: (page: Page) => Locator;
}

const dialog = (name: string) => (page: Page) => page.getByRole('dialog', { name });

const SCREENS: Screen[] = [
  {
    name: 'empty state',
    open: async (page, loom) => {
      await openLoom(page, loom);
      await expect(page.getByRole('region', { name: 'No session open' })).toBeVisible();
    },
  },
  { name: 'chat with code, a table and tool cards', open: openNotes },
  {
    name: 'a pending approval, with a busy tab badge',
    open: async (page, loom) => {
      await pendingApproval(page, loom);
      await expect(page.getByRole('tab', { name: /needs your approval/ })).toBeVisible();
    },
  },
  {
    name: 'an edit approval: its diff and the session offer',
    open: async (page, loom) => {
      fs.writeFileSync(path.join(loom.projectDir, 'notes.md'), 'one\ntwo\nthree\n');
      loom.model.enqueue(
        { toolCalls: [{ name: 'edit_file', arguments: { path: 'notes.md', old_string: 'two', new_string: '2' } }] },
        { text: 'Done.' },
        SUMMARY('Edit'),
      );
      await openLoom(page, loom);
      await newSession(page);
      await send(page, 'Edit the notes');
      await expect(page.getByRole('region', { name: 'Changes to notes.md' })).toBeVisible();
    },
  },
  {
    name: 'a command approval: the whole command and a prefix offer',
    open: async (page, loom) => {
      loom.model.enqueue({ toolCalls: [{ name: 'run_bash', arguments: { command: 'npm test -- --watch' } }] }, { text: 'Done.' }, SUMMARY('Test'));
      await openLoom(page, loom);
      await newSession(page);
      await send(page, 'Run the tests');
      await expect(page.getByRole('region', { name: 'Command' })).toBeVisible();
      await expect(page.getByRole('button', { name: 'Allow for this session' })).toBeVisible();
    },
  },
  {
    name: 'a question from the assistant',
    open: async (page, loom) => {
      loom.model.enqueue({ toolCalls: [{ name: 'ask_question', arguments: { question: 'Which colour?' } }] }, { text: 'Teal.' }, SUMMARY('Colours'));
      await openLoom(page, loom);
      await newSession(page);
      await send(page, 'Style the button');
      await expect(page.getByRole('group', { name: 'Question from the assistant' })).toBeVisible();
    },
  },
  {
    name: 'notifications offered, a background tab working',
    open: async (page, loom) => {
      let release!: () => void;
      loom.model.enqueue({ text: 'Herons wait.', pauseAfterChunks: 0, resume: new Promise<void>((r) => (release = r)) }, SUMMARY('Herons'), { text: 'Ok.' });
      await openLoom(page, loom);
      await newSession(page);
      await send(page, 'Tell me about herons');
      await newSession(page);
      await expect(page.getByRole('tab', { name: /working/ })).toBeVisible();
      release();
      await expect(page.getByRole('status').filter({ hasText: 'Loom can notify you' })).toBeVisible();
    },
  },
  {
    name: 'sidebar search results',
    open: async (page, loom) => {
      await openNotes(page, loom);
      await page.getByRole('searchbox', { name: 'Search sessions' }).fill('hello');
      await expect(page.getByRole('list', { name: 'Search results' }).getByRole('listitem')).toHaveCount(1);
    },
  },
  {
    name: 'a search hit opened at its message, outlined, with more sidebar pages to load',
    open: async (page, loom) => {
      for (let i = 0; i < 150; i++) loom.store.create({ title: `Session ${i}` });
      await openNotes(page, loom);
      await page.getByRole('searchbox', { name: 'Search sessions' }).fill('loop');
      const hit = page.getByRole('list', { name: 'Search results' }).getByRole('listitem').filter({ hasText: 'Notes' });
      await expect(hit.locator('mark')).toHaveText('loop');
      await hit.getByRole('button', { name: /^Notes/ }).click();
      await expect(transcript(page).locator('.row.search-found')).toBeInViewport();
    },
  },
  ...[
    { width: 1280, height: 800 },
    { width: 800, height: 600 },
  ].map((size) => ({
    name: `find in session with its matches highlighted, at ${size.width}×${size.height}`,
    open: async (page: Page, loom: LoomHarness) => {
      await page.setViewportSize(size);
      await openNotes(page, loom);
      await page.keyboard.press('Control+f');
      await page.getByRole('searchbox', { name: 'Find in session' }).fill('loop');
      await expect(page.getByRole('search', { name: 'Find in session' }).getByRole('status')).toHaveText(/^1 of \d+$/);
    },
  })),
  {
    name: 'sidebar folded to a rail at 800×600',
    open: async (page, loom) => {
      await page.setViewportSize({ width: 800, height: 600 });
      await openNotes(page, loom);
      await page.getByRole('button', { name: 'Session sidebar' }).click();
      await expect(page.getByRole('button', { name: 'Session sidebar' })).toHaveAttribute('aria-expanded', 'false');
    },
  },
  ...([1280, 800] as const).map((width) => ({
    name: `Skip to chat focused, the session list one Tab stop, at ${width === 1280 ? '1280×800' : '800×600'}`,
    open: async (page: Page, loom: LoomHarness) => {
      await page.setViewportSize(width === 1280 ? { width: 1280, height: 800 } : { width: 800, height: 600 });
      await openNotes(page, loom);
      await page.getByRole('complementary', { name: 'Sessions' }).getByRole('button', { name: 'Session sidebar' }).focus();
      await page.keyboard.press('Shift+Tab');
      await expect(page.getByRole('link', { name: 'Skip to chat' })).toBeFocused();
    },
  })),
  {
    name: 'sidebar with archived sessions shown',
    open: async (page, loom) => {
      const archived = loom.store.create({ title: 'Old notes' });
      loom.store.setArchived(archived.id, true);
      loom.store.create({ title: 'Current notes' });
      await openLoom(page, loom);
      await page.getByRole('switch', { name: 'Show archived' }).check();
      await expect(sidebarRow(page, 'Old notes')).toContainText('archived');
    },
  },
  {
    name: 'session menu',
    open: async (page, loom) => {
      await openNotes(page, loom);
      await sidebarRow(page, 'Notes').getByRole('button', { name: 'Actions for Notes' }).click();
      await expect(page.getByRole('menu')).toBeVisible();
    },
    scope: (page) => page.getByRole('menu'),
  },
  {
    name: 'chat with an attached file and image, more files waiting in the message box',
    open: async (page, loom) => {
      const withFiles: ChatMessage = {
        role: 'user',
        content: [
          { type: 'text', text: '<user_input>\nWhat is this?\n</user_input>\n\n<attached_file name="notes.txt">\nhello\n</attached_file>' },
          { type: 'image_url', image_url: { url: PNG_URL } },
        ],
      };
      loom.store.create({ title: 'Pictures', messages: [nth(CONVERSATION, 0), withFiles, { role: 'assistant', content: 'A dot.' }] });
      await openLoom(page, loom);
      await sidebarRow(page, 'Pictures')
        .getByRole('button', { name: /^Pictures/ })
        .click();
      await expect(transcript(page).getByRole('img', { name: 'Attached image 1' })).toBeVisible();
      await page.getByLabel('Files to attach').setInputFiles([
        { name: 'dot.png', mimeType: 'image/png', buffer: PNG_1X1 },
        { name: 'todo.txt', mimeType: 'text/plain', buffer: Buffer.from('milk') },
      ]);
      await expect(page.getByRole('list', { name: 'Attached files' }).getByRole('listitem')).toHaveCount(2);
    },
  },
  {
    name: 'export menu in the chat header',
    open: async (page, loom) => {
      await openNotes(page, loom);
      await page.getByRole('button', { name: 'Export', exact: true }).click();
    },
    scope: (page) => page.getByRole('menu', { name: 'Export as' }),
  },
  {
    name: 'files dragged over the window: the import drop target',
    open: async (page, loom) => {
      await openNotes(page, loom);
      await page.getByRole('complementary', { name: 'Sessions' }).evaluate((sidebar) => {
        // In the page (this Node project has no DOM types): files dragged in from outside.
        const dom = globalThis as unknown as {
          DataTransfer: new () => { items: { add(file: unknown): void } };
          File: new (parts: string[], name: string, init: { type: string }) => unknown;
          DragEvent: new (type: string, init: object) => Event;
        };
        const data = new dom.DataTransfer();
        data.items.add(new dom.File(['{}'], 'session.json', { type: 'application/json' }));
        sidebar.dispatchEvent(new dom.DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
      });
      await expect(page.getByRole('status').filter({ hasText: 'Drop Loom session files' })).toBeVisible();
    },
  },
  {
    name: 'info dialog',
    open: async (page, loom) => {
      await openNotes(page, loom);
      await page.getByRole('button', { name: 'Info' }).click();
      await expect(page.getByRole('table', { name: 'Usage' })).toBeVisible();
    },
    scope: dialog('Session info'),
  },
  {
    name: 'info dialog listing what is allowed for the session',
    open: async (page, loom) => {
      await pendingApproval(page, loom);
      await page.getByRole('group', { name: 'Approval needed: write_file' }).getByRole('button', { name: 'Allow for this session' }).click();
      await expect(transcript(page).getByText('Done.')).toBeVisible();
      await page.getByRole('button', { name: 'Info' }).click();
      await expect(page.getByRole('button', { name: 'Revoke: every write_file call' })).toBeVisible();
    },
    scope: dialog('Session info'),
  },
  {
    name: 'rename dialog',
    open: async (page, loom) => {
      await openNotes(page, loom);
      await sessionAction(page, 'Notes', 'Rename…');
    },
    scope: dialog('Rename session'),
  },
  {
    name: 'delete dialog',
    open: async (page, loom) => {
      await openNotes(page, loom);
      await sessionAction(page, 'Notes', 'Delete…');
    },
    scope: dialog('Delete session?'),
  },
  {
    name: 'settings dialog',
    open: async (page, loom) => {
      await openLoom(page, loom);
      await page.getByRole('button', { name: 'Settings' }).click();
    },
    scope: dialog('Settings'),
  },
  {
    name: 'import from another agent: progress, refusals and the summary',
    open: async (page, loom) => {
      const folder = path.join(loom.dataDir, 'claude-projects');
      writeFile(path.join(folder, 'project', `${CLAUDE_SESSION}.jsonl`), jsonl([...claudeMain(), ...claudeBranch()]));
      await openLoom(page, loom);
      await page.getByRole('button', { name: 'Import from…' }).click();
      const importing = page.getByRole('dialog', { name: 'Import from another agent' });
      await importing.getByRole('textbox', { name: /^Folder or file/ }).fill(folder);
      await importing.getByRole('button', { name: 'Import' }).click();
      await expect(importing.getByRole('status')).toContainText('Imported from claude-code');
      await expect(importing.getByRole('progressbar', { name: 'Import progress' })).toHaveAttribute('aria-valuenow', '1');
    },
    scope: dialog('Import from another agent'),
  },
  {
    name: 'import from another agent: opencode, and a path refused',
    open: async (page, loom) => {
      await openLoom(page, loom);
      await page.getByRole('button', { name: 'Import from…' }).click();
      const importing = page.getByRole('dialog', { name: 'Import from another agent' });
      await importing.getByRole('combobox', { name: 'Source' }).selectOption('opencode');
      await importing.getByRole('textbox', { name: /^Folder or file/ }).fill(path.join(loom.dataDir, 'missing.json'));
      await importing.getByRole('button', { name: 'Import' }).click();
      await expect(importing.getByRole('alert')).toContainText('Nothing to import');
    },
    scope: dialog('Import from another agent'),
  },
  {
    name: 'changed files dialog, asked when the tab closes',
    open: async (page, loom) => {
      await pendingApproval(page, loom);
      await page.getByRole('group', { name: 'Approval needed: write_file' }).getByRole('button', { name: 'Allow once' }).click();
      await expect(transcript(page).getByText('Done.')).toBeVisible();
      await page
        .getByRole('tablist', { name: 'Open sessions' })
        .getByTitle(/^Close tab /)
        .click();
      await expect(page.getByRole('dialog', { name: 'Changed files' }).getByRole('listitem')).toHaveText(['notes.md']);
    },
    scope: dialog('Changed files'),
  },
  {
    name: 'a reply with its facts line and copy buttons, one saying Copied',
    open: async (page, loom) => {
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(loom.url).origin });
      await replyWithFacts(page, loom);
      const reply = transcript(page).getByRole('article', { name: 'Assistant' });
      await reply.getByRole('button', { name: 'Copy js code' }).click();
      await expect(reply.getByRole('button', { name: 'Copied' })).toBeVisible();
    },
  },
  {
    name: 'settings dialog with a failed connection test',
    open: async (page, loom) => {
      await openLoom(page, loom);
      await page.getByRole('button', { name: 'Settings' }).click();
      const settings = page.getByRole('dialog', { name: 'Settings' });
      await settings.getByRole('combobox', { name: /^Model/ }).selectOption('Type another name…');
      await settings.getByRole('textbox', { name: /^Model \(/ }).fill('no-such-model');
      await settings.getByRole('button', { name: 'Test connection' }).click();
      await expect(settings.getByRole('status').filter({ hasText: 'has no model "no-such-model"' })).toBeVisible();
    },
    scope: dialog('Settings'),
  },
  {
    name: "the session's model dialog",
    open: async (page, loom) => {
      await openNotes(page, loom);
      await page.getByRole('button', { name: /^Model: / }).click();
      await expect(page.getByRole('dialog', { name: 'Model for this session' }).getByRole('combobox', { name: 'Model' })).toBeVisible();
    },
    scope: dialog('Model for this session'),
  },
  {
    name: "the session's agent picker",
    open: async (page, loom) => {
      await openNotes(page, loom);
      await page.getByRole('button', { name: /^Agent: / }).click();
      await expect(page.getByRole('dialog', { name: 'Agent for this session' }).getByRole('radio', { name: /^plan/ })).toBeVisible();
    },
    scope: dialog('Agent for this session'),
  },
  {
    name: 'info dialog with model changes',
    open: async (page, loom) => {
      const { id } = loom.store.create({ title: 'Switched', model: 'gemma4', messages: CONVERSATION, cwd: loom.projectDir });
      loom.store.setModel(id, 'scripted-model');
      await openLoom(page, loom);
      await sidebarRow(page, 'Switched')
        .getByRole('button', { name: /^Switched/ })
        .click();
      await page.getByRole('button', { name: 'Info' }).click();
      await expect(page.getByRole('table', { name: 'Model changes' })).toBeVisible();
    },
    scope: dialog('Session info'),
  },
  {
    name: 'the sidebar with the sync status line and the Team search scope',
    open: async (page, loom) => {
      await unreachableHub(page, loom);
      await page.getByRole('searchbox', { name: 'Search sessions' }).fill('loop');
      await page.getByRole('radio', { name: 'Team' }).focus();
    },
  },
  {
    name: 'settings dialog with the sync hub and its status',
    open: async (page, loom) => {
      await unreachableHub(page, loom);
      await page.getByRole('button', { name: 'Settings' }).click();
      await expect(page.getByRole('region', { name: 'Sync hub' }).getByRole('status', { name: 'Sync status' })).toHaveText(/^Hub unreachable/);
    },
    scope: dialog('Settings'),
  },
  {
    name: 'share dialog with its answer',
    open: async (page, loom) => {
      await unreachableHub(page, loom);
      await sessionAction(page, 'Notes', 'Share with…');
      const share = page.getByRole('dialog', { name: 'Share with a team' });
      await share.getByRole('textbox', { name: 'Team' }).fill('core');
      await share.getByRole('button', { name: 'Share' }).click();
      await expect(share.getByRole('status')).toHaveText(/^The share with "core" is queued/);
    },
    scope: dialog('Share with a team'),
  },
];

/** Notes, and a sync hub set that nothing answers at: the sync's status line says so. */
async function unreachableHub(page: Page, loom: LoomHarness): Promise<void> {
  await loom.mode.backend.handlers['settings.set']({ hubUrl: 'postgres://alice:a11y-pw@127.0.0.1:1/loom' });
  await openNotes(page, loom);
  await expect(page.getByRole('status', { name: 'Sync status' })).toHaveText(/^Hub unreachable \(connection refused\)/);
}

/** A new session with a reply that has code and the facts of a streamed reply (tokens, latency, speed). */
async function replyWithFacts(page: Page, loom: LoomHarness): Promise<void> {
  loom.model.enqueue(
    { chunks: ['Here:\n\n', '```js\nconst x = 1;\n```\n'], usage: { prompt_tokens: 1234, completion_tokens: 56 }, chunkDelayMs: 20 },
    SUMMARY('Facts'),
  );
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Some code, please');
  await expect(
    transcript(page)
      .getByRole('article', { name: 'Assistant' })
      .getByText(/tok\/s$/),
  ).toBeVisible();
}

const THEMES = ['light', 'dark'] as const;

for (const screen of SCREENS) {
  test(`axe finds no violation: ${screen.name}, light and dark`, async ({ page, loom }) => {
    await screen.open(page, loom);
    for (const theme of THEMES) {
      await page.emulateMedia({ colorScheme: theme });
      expect(await page.evaluate<string>('getComputedStyle(document.body).colorScheme'), theme).toContain(theme === 'dark' ? 'dark' : 'light');
      expect(await axeViolations(page, screen.scope?.(page)), theme).toEqual([]);
    }
  });
}

const CONTROL = /^\s*- (button|textbox|checkbox|switch|combobox|searchbox|menuitem|tab|spinbutton|link)(?: \[[^\]]*\])*:?$/;

async function unnamedControls(page: Page, scope = page.locator('body')): Promise<string[]> {
  const snapshot = await scope.ariaSnapshot();
  return snapshot.split('\n').filter((line) => CONTROL.test(line));
}

test('every control has an accessible name', async ({ page, loom }) => {
  await openNotes(page, loom);
  expect(await unnamedControls(page)).toEqual([]);

  await sidebarRow(page, 'Notes').getByRole('button', { name: 'Actions for Notes' }).click();
  expect(await unnamedControls(page, page.getByRole('menu'))).toEqual([]);
  await page.keyboard.press('Escape');

  for (const [open, name] of [
    [() => page.getByRole('button', { name: 'Settings' }).click(), 'Settings'],
    [() => page.getByRole('button', { name: 'Info' }).click(), 'Session info'],
    [() => sessionAction(page, 'Notes', 'Rename…'), 'Rename session'],
    [() => sessionAction(page, 'Notes', 'Delete…'), 'Delete session?'],
    [() => page.getByRole('button', { name: /^Model: / }).click(), 'Model for this session'],
    [() => page.getByRole('button', { name: /^Agent: / }).click(), 'Agent for this session'],
  ] as const) {
    await open();
    const box = page.getByRole('dialog', { name });
    await expect(box).toBeVisible();
    expect(await unnamedControls(page, box), name).toEqual([]);
    await page.keyboard.press('Escape');
    await expect(box).toBeHidden();
  }
});

test('the theme follows the system', async ({ page, loom }) => {
  await openLoom(page, loom);
  const background = () => page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
  await page.emulateMedia({ colorScheme: 'light' });
  expect(await background()).toBe('rgb(255, 255, 255)');
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await background()).toBe('rgb(22, 24, 29)');
});
