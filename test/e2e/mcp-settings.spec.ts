/**
 * MCP servers managed in the settings dialog: added (it starts, its tools are offered),
 * disabled and enabled, restarted, edited with a saved secret kept unseen, and removed after
 * a confirmation — each saved to mcp.json at once. A refused entry is said in its dialog.
 */
import AxeBuilder from '@axe-core/playwright';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { STDIO_SERVER } from '../mcp/support';
import { SUMMARY, expect, newSession, openLoom, send, test, transcript } from './fixtures';

const mcpFile = (dataDir: string) => JSON.parse(fs.readFileSync(path.join(dataDir, 'mcp.json'), 'utf8')).mcpServers;

async function openSettings(page: Page) {
  await page.getByRole('button', { name: 'Settings' }).click();
  return page.getByRole('dialog', { name: 'Settings' }).getByRole('listitem');
}

test('an MCP server added in the settings starts and its tools reach the next request; disable, enable, restart, remove', async ({ page, loom }) => {
  await openLoom(page, loom);
  await openSettings(page);
  const settings = page.getByRole('dialog', { name: 'Settings' });
  await expect(settings.getByText('No MCP servers are configured.')).toBeVisible();
  await settings.getByRole('button', { name: 'Add MCP server…' }).click();

  const add = page.getByRole('dialog', { name: 'Add an MCP server' });
  await add.getByRole('textbox', { name: /^Name/ }).fill('files');
  await add.getByRole('textbox', { name: 'Command' }).fill(process.execPath);
  await add.getByRole('textbox', { name: /^Arguments/ }).fill(`${STDIO_SERVER}\nserve`);
  await add.getByRole('textbox', { name: /^Environment variables/ }).fill('FILES_TOKEN=s3cret');
  await add.getByRole('checkbox', { name: /^Run it in the sandbox/ }).uncheck();
  await add.getByRole('textbox', { name: /^Tools that only read/ }).fill('echo');
  await add.getByRole('button', { name: 'Save' }).click();
  await expect(add).toBeHidden();

  const row = settings.getByRole('list', { name: 'MCP servers' }).getByRole('listitem', { name: 'files' });
  await expect(row).toContainText(/Running.*stdio, not sandboxed, 9 tools \(1 read-only\)/);
  // The settings dialog is still open: adding a server did not submit it.
  await expect(settings).toBeVisible();
  expect(mcpFile(loom.dataDir)).toEqual({
    files: { command: process.execPath, args: [STDIO_SERVER, 'serve'], env: { FILES_TOKEN: 's3cret' }, sandbox: false, readOnlyTools: ['echo'] },
  });

  // Edited: the saved secret shows as *** and is kept; only the name changes.
  await row.getByRole('button', { name: 'Edit files' }).click();
  const editing = page.getByRole('dialog', { name: 'MCP server files' });
  await expect(editing.getByRole('textbox', { name: /^Environment variables/ })).toHaveValue('FILES_TOKEN=***');
  await editing.getByRole('textbox', { name: /^Name/ }).fill('notes');
  await editing.getByRole('button', { name: 'Save' }).click();
  await expect(editing).toBeHidden();
  const renamed = settings.getByRole('listitem', { name: 'notes' });
  await expect(renamed).toContainText('Running');
  expect(mcpFile(loom.dataDir)).toEqual({ notes: expect.objectContaining({ env: { FILES_TOKEN: 's3cret' } }) });

  await renamed.getByRole('button', { name: 'Disable notes' }).click();
  await expect(renamed).toContainText('Disabled');
  expect(mcpFile(loom.dataDir).notes.disabled).toBe(true);
  await renamed.getByRole('button', { name: 'Enable notes' }).click();
  await expect(renamed).toContainText('Running');
  await renamed.getByRole('button', { name: 'Restart notes' }).click();
  await expect(renamed).toContainText(/Running.*9 tools/);
  await settings.getByRole('button', { name: 'Cancel' }).click();

  // The tools are offered to a session's next request.
  loom.model.enqueue({ toolCalls: [{ id: 'e1', name: 'mcp__notes__echo', arguments: { text: 'from settings' } }] }, { text: 'Echoed.' }, SUMMARY('MCP'));
  await newSession(page);
  await send(page, 'echo');
  await expect(transcript(page)).toContainText('echo: from settings');

  await openSettings(page);
  await settings.getByRole('listitem', { name: 'notes' }).getByRole('button', { name: 'Remove notes' }).click();
  const confirm = page.getByRole('dialog', { name: 'Remove MCP server' });
  await confirm.getByRole('button', { name: 'Remove' }).click();
  await expect(settings.getByText('No MCP servers are configured.')).toBeVisible();
  expect(mcpFile(loom.dataDir)).toEqual({});
});

test('a server entry the backend refuses is said in its dialog; the dialog passes an axe scan in both themes', async ({ page, loom }) => {
  await openLoom(page, loom);
  await openSettings(page);
  await page.getByRole('dialog', { name: 'Settings' }).getByRole('button', { name: 'Add MCP server…' }).click();
  const add = page.getByRole('dialog', { name: 'Add an MCP server' });
  await add.getByRole('textbox', { name: /^Name/ }).fill('broken');
  await add.getByRole('textbox', { name: 'Command' }).fill('x');
  await add.getByRole('textbox', { name: /^Environment variables/ }).fill('1BAD=value');
  await add.getByRole('button', { name: 'Save' }).click();
  await expect(add.getByRole('alert')).toHaveText(
    'Line 1 of the environment list: 1BAD is not a name Loom can pass on (a variable name is letters, digits and _, not starting with a digit).',
  );
  expect(fs.existsSync(path.join(loom.dataDir, 'mcp.json'))).toBe(false);

  await add.getByRole('textbox', { name: /^Environment variables/ }).fill('no separator');
  await add.getByRole('button', { name: 'Save' }).click();
  await expect(add.getByRole('alert')).toHaveText('Line 1 of the environment list needs NAME=value.');

  // What the page lets through, the backend still checks: a command the file cannot hold.
  await add.getByRole('textbox', { name: /^Environment variables/ }).fill('');
  await add.getByRole('textbox', { name: 'Command' }).fill('x'.repeat(5000));
  await add.getByRole('button', { name: 'Save' }).click();
  await expect(add.getByRole('alert')).toContainText('Invalid input for settings.mcpSave: server.command');
  expect(fs.existsSync(path.join(loom.dataDir, 'mcp.json'))).toBe(false);

  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    const scan = await new AxeBuilder({ page }).include('.mcp-server-dialog').analyze();
    expect(
      scan.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      theme,
    ).toEqual([]);
  }
});
