/**
 * Chat: a streamed reply as Markdown, tool approvals allowed and denied (and shown again
 * after a reload), and a model server that is down.
 */
import fs from 'node:fs';
import path from 'node:path';
import { nth } from '../support/elements';
import { SUMMARY, expect, newSession, openLoom, send, test, transcript } from './fixtures';

test('a reply streams in and is shown as Markdown with highlighted code, its raw HTML as text', async ({ page, loom }) => {
  // The stream pauses after its second text piece until the test has seen the reply in flight.
  let finishStream!: () => void;
  const streamMayFinish = new Promise<void>((resolve) => (finishStream = resolve));
  loom.model.enqueue(
    {
      chunks: ['Here is ', '**bold** advice', ' and code:\n\n```js\nconst x = 1;\n```\n', '<img src=x onerror="window.pwned=1">'],
      pauseAfterChunks: 3, // the role event, then two text pieces
      resume: streamMayFinish,
    },
    SUMMARY('Greeting and a code sample'),
  );
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Hello Loom');

  await expect(transcript(page).getByRole('article', { name: 'You' })).toHaveText(/Hello Loom/);
  // Streaming: the partial reply is visible before the turn has ended.
  await expect(page.getByRole('article', { name: 'Assistant (replying)' })).toContainText('bold advice');
  await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();
  finishStream();

  const reply = transcript(page).getByRole('article', { name: 'Assistant' });
  await expect(reply.locator('strong')).toHaveText('bold');
  await expect(reply.locator('pre.code .hljs-keyword')).toHaveText('const');
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
  await expect(reply).toContainText('<img src=x onerror="window.pwned=1">');
  await expect(reply.locator('img')).toHaveCount(0);
  // The message box is empty again, and the sidebar shows the model's listing summary.
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('');
  await expect(page.getByRole('complementary', { name: 'Sessions' })).toContainText('Greeting and a code sample');
});

test('markup, scripts, frames, script links and remote images in a reply are inert text', async ({ page, loom }) => {
  const attacks = [
    '<img src=x onerror="window.pwned=1">',
    '<script>window.pwned=2</script>',
    '<iframe src="https://evil.example/frame"></iframe>',
    'Inline <svg onload="window.pwned=3"></svg> and <a href="javascript:window.pwned=4">html link</a>',
    '[markdown link](javascript:window.pwned=5)',
    '![tracker](https://evil.example/pixel.png)',
  ];
  loom.model.enqueue({ text: attacks.join('\n\n') }, SUMMARY('Hostile markup'));
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Show me some HTML');

  const reply = transcript(page).getByRole('article', { name: 'Assistant' });
  for (const shown of [...attacks.slice(0, 3), '<svg onload="window.pwned=3"></svg>', '<a href="javascript:window.pwned=4">']) {
    await expect(reply).toContainText(shown);
  }
  await expect(reply).toContainText('markdown link');
  await expect(reply.locator('img, script, iframe, svg, object, embed')).toHaveCount(0);
  // The only link is the remote image's, opening outside the app; the script link is text.
  const links = reply.getByRole('link');
  await expect(links).toHaveCount(1);
  await expect(links).toHaveText('🖼 tracker');
  await expect(links).toHaveAttribute('href', 'https://evil.example/pixel.png');
  await expect(links).toHaveAttribute('target', '_blank');
  await expect(links).toHaveAttribute('rel', 'noopener noreferrer');
  expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
  // The strict page-error guard (fixtures.ts) then checks that no CSP report was raised.
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

test('an approval still waiting when the page reloads is shown again, and Allow runs the tool', async ({ page, loom }) => {
  loom.model.enqueue(
    { toolCalls: [{ name: 'write_file', arguments: { path: 'kept.txt', content: 'survived' } }] },
    { text: 'Wrote kept.txt.' },
    SUMMARY('Writing after a reload'),
  );
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Please write kept.txt');
  await expect(page.getByRole('group', { name: 'Approval needed: write_file' })).toContainText('kept.txt');
  // The open tab is saved (debounced) before the reload, so the same tab comes back.
  const session = nth(loom.store.list(), 0);
  await expect.poll(async () => (await loom.mode.backend.handlers['settings.get']({})).activeTab).toBe(session.id);

  await page.reload();
  const approval = page.getByRole('group', { name: 'Approval needed: write_file' });
  await expect(approval).toContainText('kept.txt');
  await expect(approval).toContainText('file change (default mode)');
  expect(fs.existsSync(path.join(loom.projectDir, 'kept.txt'))).toBe(false);
  await approval.getByRole('button', { name: 'Allow once' }).click();
  await expect(transcript(page).getByText('Wrote kept.txt.')).toBeVisible();
  expect(fs.readFileSync(path.join(loom.projectDir, 'kept.txt'), 'utf8')).toBe('survived');
  await expect(approval).toBeHidden();
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

test('ask_question is answered inline and the answer reaches the model', async ({ page, loom }) => {
  loom.model.enqueue(
    { toolCalls: [{ name: 'ask_question', arguments: { question: 'Which colour should the button be?' } }] },
    { text: 'Teal it is.' },
    SUMMARY('Choosing a colour'),
  );
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Style the button');
  const question = page.getByRole('group', { name: 'Question from the assistant' });
  await expect(question).toContainText('Which colour should the button be?');
  await question.getByRole('textbox', { name: 'Your answer' }).fill('teal');
  await question.getByRole('button', { name: 'Answer' }).click();
  await expect(transcript(page).getByText('Teal it is.')).toBeVisible();
  const toolResult = nth(loom.model.requests, 1).body.messages.at(-1);
  expect(toolResult.role).toBe('tool');
  expect(toolResult.content).toContain('The user answered: teal');
});

test('Stop ends a reply in flight and the session takes the next message', async ({ page, loom }) => {
  loom.model.enqueue({ text: 'This reply takes its time to arrive word by word.', stallAfterChunks: 2 }, { text: 'Fresh start.' }, SUMMARY('Stopping'));
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Say something slowly');
  await expect(page.getByRole('article', { name: 'Assistant (replying)' })).toContainText('This');
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  await send(page, 'Again');
  await expect(transcript(page).getByText('Fresh start.')).toBeVisible();
});

test('the settings dialog saves the model server and keeps the API key out of the page', async ({ page, loom }) => {
  await openLoom(page, loom);
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await expect(dialog.getByRole('textbox', { name: /Model server/ })).toHaveValue(loom.model.baseUrl);
  // The server lists gemma4 and scripted-model; another name is typed.
  await dialog.getByRole('combobox', { name: /^Model \(/ }).selectOption('Type another name…');
  await dialog.getByRole('textbox', { name: /^Model \(/ }).fill('llama3');
  await dialog.getByLabel(/^API key/).fill('sk-test-secret-123');
  await dialog.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');

  const saved = JSON.parse(fs.readFileSync(path.join(loom.dataDir, 'settings.json'), 'utf8'));
  expect(saved).toMatchObject({ model: 'llama3', apiKey: 'sk-test-secret-123', theme: 'dark' });
  expect(fs.statSync(path.join(loom.dataDir, 'settings.json')).mode & 0o777).toBe(0o600);
  const view = await loom.mode.backend.handlers['settings.get']({});
  expect(view).toMatchObject({ model: 'llama3', hasApiKey: true });
  expect(JSON.stringify(view)).not.toContain('sk-test-secret-123');

  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(dialog.getByText('(one is stored; type to replace it)')).toBeVisible();
  await expect(dialog.getByLabel(/^API key/)).toHaveValue('');
});
