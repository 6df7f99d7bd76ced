/**
 * MCP servers in the window: a real stdio MCP server (the SDK's own classes) and one that
 * crashes at start, configured in the data folder's mcp.json. The failed one is one banner
 * line; the settings dialog lists both with their state; a call to a tool not marked
 * read-only is asked about (and runs once approved), a read-only one is not.
 */
import AxeBuilder from '@axe-core/playwright';
import fs from 'node:fs';
import path from 'node:path';
import { stdioServer } from '../mcp/support';
import { SUMMARY, expect, newSession, openLoom, send, test, transcript } from './fixtures';

test.use({ mcpServers: { files: stdioServer('serve', { readOnlyTools: ['echo'] }), broken: stdioServer('crash') } });

test('MCP servers: a failed one is one banner, settings show both, the gate asks unless read-only', async ({ page, loom }) => {
  const note = path.join(loom.projectDir, 'note.txt');
  loom.model.enqueue(
    { toolCalls: [{ id: 'w1', name: 'mcp__files__write_file', arguments: { path: note, text: 'from the server' } }] },
    { toolCalls: [{ id: 'e1', name: 'mcp__files__echo', arguments: { text: 'no question asked' } }] },
    { text: 'Both tools ran.' },
    SUMMARY('MCP tools'),
  );
  await openLoom(page, loom);
  await expect(page.getByRole('alert').filter({ hasText: /^MCP server "broken" could not be started: it exited \(exit code 1\)/ })).toBeVisible();

  await page.getByRole('button', { name: 'Settings' }).click();
  const servers = page.getByRole('dialog', { name: 'Settings' }).getByRole('list', { name: 'MCP servers' });
  await expect(servers.getByRole('listitem', { name: 'files' })).toContainText(/Running.*stdio, (not )?sandboxed, 9 tools \(1 read-only\)/);
  await expect(servers.getByRole('listitem', { name: 'broken' })).toContainText('Failed to start');
  await expect(servers.getByRole('listitem', { name: 'broken' })).toContainText('cannot open its database');
  await expect(page.getByRole('dialog', { name: 'Settings' })).toContainText(path.join(loom.dataDir, 'mcp.json'));
  await page.getByRole('dialog', { name: 'Settings' }).getByRole('button', { name: 'Cancel' }).click();

  await newSession(page);
  await send(page, 'use the server');
  const card = page.getByRole('group', { name: 'Approval needed: mcp__files__write_file' });
  await expect(card).toContainText(`mcp__files__write_file {"path":"${note}","text":"from the server"}`);
  await card.getByRole('button', { name: 'Allow once' }).click();
  await expect(page.getByRole('article', { name: 'Assistant' }).last()).toContainText('Both tools ran.', { timeout: 15_000 });
  await expect(transcript(page)).toContainText('echo: no question asked');
  await expect(page.getByRole('group', { name: /^Approval needed/ })).toHaveCount(0);
  expect(loom.model.requests.filter((r) => r.body.tools).length).toBe(3);
  expect(fs.readFileSync(note, 'utf8')).toBe('from the server');
});

// The scan of every screen (accessibility.spec.ts) starts without mcp.json; this one has a running and a failed server.
test('the MCP servers in the settings dialog and the failure banner pass an axe scan in both themes', async ({ page, loom }) => {
  await openLoom(page, loom);
  await expect(page.getByRole('alert').filter({ hasText: /^MCP server "broken"/ })).toBeVisible();
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByRole('dialog', { name: 'Settings' }).getByRole('listitem', { name: 'broken' })).toContainText('Failed to start');
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    const scan = await new AxeBuilder({ page }).include('.mcp-servers').include('.banners').analyze();
    expect(
      scan.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      theme,
    ).toEqual([]);
  }
});
