/** Chat: a streamed reply as Markdown, tool approvals allowed and denied, and a model server that is down. */
import fs from 'node:fs';
import path from 'node:path';
import { SUMMARY, expect, newSession, openLoom, send, test, transcript } from './fixtures';

test('a reply streams in and is shown as sanitised Markdown with highlighted code', async ({ page, loom }) => {
  loom.model.enqueue(
    { chunks: ['Here is ', '**bold** advice', ' and code:\n\n```js\nconst x = 1;\n```\n', '<img src=x onerror="window.pwned=1">'], chunkDelayMs: 150 },
    SUMMARY('Greeting and a code sample'),
  );
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Hello Loom');

  await expect(transcript(page).getByRole('article', { name: 'You' })).toHaveText(/Hello Loom/);
  // Streaming: the partial reply is visible before the turn has ended.
  await expect(page.getByRole('article', { name: 'Assistant (replying)' })).toContainText('bold advice');
  await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();

  const reply = transcript(page).getByRole('article', { name: 'Assistant' });
  await expect(reply.locator('strong')).toHaveText('bold');
  await expect(reply.locator('pre.code .hljs-keyword')).toHaveText('const');
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
  await expect(reply.locator('img')).not.toHaveAttribute('onerror', /.*/);
  // The message box is empty again, and the sidebar shows the model's listing summary.
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('');
  await expect(page.getByRole('complementary', { name: 'Sessions' })).toContainText('Greeting and a code sample');
});

test('a tool call waits for approval: allowed once it runs, denied it does not', async ({ page, loom }) => {
  loom.model.enqueue(
    { toolCalls: [{ name: 'write_file', arguments: { path: 'allowed.txt', content: 'yes' } }] },
    { text: 'Wrote allowed.txt.' },
    SUMMARY('Writing files'),
    { toolCalls: [{ name: 'write_file', arguments: { path: 'denied.txt', content: 'no' } }] },
    { text: 'Understood, I did not write it.' },
  );
  await openLoom(page, loom);
  await newSession(page);

  await send(page, 'Please write allowed.txt');
  const approval = page.getByRole('group', { name: 'Approval needed: write_file' });
  await expect(approval).toContainText('allowed.txt');
  await expect(approval).toContainText('file change (default mode)');
  expect(fs.existsSync(path.join(loom.projectDir, 'allowed.txt'))).toBe(false);
  await approval.getByRole('button', { name: 'Allow once' }).click();
  await expect(transcript(page).getByText('Wrote allowed.txt.')).toBeVisible();
  expect(fs.readFileSync(path.join(loom.projectDir, 'allowed.txt'), 'utf8')).toBe('yes');

  // The call and its result are collapsible cards.
  const call = transcript(page).locator('details.tool-call').first();
  await expect(call).toContainText('write_file');
  await call.locator('summary').click();
  await expect(call.locator('.card-body')).toContainText('"path": "allowed.txt"');
  const result = transcript(page).getByRole('group', { name: 'Result of write_file' }).first();
  await expect(result).toContainText('Created allowed.txt');

  await send(page, 'Now write denied.txt');
  const second = page.getByRole('group', { name: 'Approval needed: write_file' });
  await expect(second).toContainText('denied.txt');
  await second.getByRole('button', { name: 'Deny' }).click();
  await expect(transcript(page).getByText('Understood, I did not write it.')).toBeVisible();
  expect(fs.existsSync(path.join(loom.projectDir, 'denied.txt'))).toBe(false);
  await expect(transcript(page).getByRole('group', { name: 'Result of write_file' }).last()).toContainText('Denied by the user');
});

test('with the model server down the error is shown and the typed message kept', async ({ page, loom }) => {
  await loom.model.close();
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Are you there?');
  await expect(page.getByRole('alert').filter({ hasText: /reach|connect|refused|unreachable/i })).toBeVisible({ timeout: 20_000 });
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('Are you there?');
  // Non-blocking: the window still works (the sidebar and buttons respond).
  await page.getByRole('button', { name: 'Dismiss message' }).last().click();
  await expect(page.getByRole('button', { name: 'Send' })).toBeEnabled();
});
