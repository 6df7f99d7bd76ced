/**
 * Models in the window: the settings dialog's picker filled from the server's /models and
 * its connection test (unreachable, key refused, model missing, success); the session's
 * model in the chat header, used by the next request and recorded; each message's facts
 * line; and the copy buttons, read back from the real clipboard.
 */
import path from 'node:path';
import { importFiles, runImport } from '../../src/core/import/run';
import { CLAUDE_SESSION, claudeMain, jsonl, writeFile } from '../import/fixtures';
import { nth } from '../support/elements';
import { startScriptedServer } from '../support/scripted-server';
import { SUMMARY, expect, newSession, openLoom, send, sidebarRow, test, transcript } from './fixtures';

test('the settings dialog picks the model from the server and tests the connection', async ({ page, loom }) => {
  loom.model.models = { ids: ['gemma4', 'qwen3', 'scripted-model'] };
  await openLoom(page, loom);
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  const picker = dialog.getByRole('combobox', { name: 'Model (the default for new sessions)' });
  await expect(picker.getByRole('option')).toHaveText(['gemma4', 'qwen3', 'scripted-model', 'Type another name…']);
  await expect(picker).toHaveValue('gemma4');

  const result = dialog.getByRole('status').filter({ hasText: /./ });
  await dialog.getByRole('button', { name: 'Test connection' }).click();
  await expect(result).toHaveText(`Connected to the model server at ${loom.model.baseUrl}: 3 models, "gemma4" among them.`);

  await picker.selectOption('qwen3');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  expect((await loom.mode.backend.handlers['settings.get']({})).model).toBe('qwen3');
});

test('the connection test says what is wrong: model missing, key refused, server unreachable', async ({ page, loom }) => {
  const down = await startScriptedServer();
  const downUrl = down.baseUrl;
  await down.close();
  await openLoom(page, loom);
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  const result = dialog.locator('.connection-result');
  const test = dialog.getByRole('button', { name: 'Test connection' });

  // A name the server does not have: typed, then tested.
  await dialog.getByRole('combobox', { name: /^Model/ }).selectOption('Type another name…');
  await dialog.getByRole('textbox', { name: /^Model \(/ }).fill('gpt-5');
  await test.click();
  await expect(result).toHaveText(`Connected, but the model server at ${loom.model.baseUrl} has no model "gpt-5". It has gemma4, scripted-model.`);

  // The server refuses the key: the list cannot be had, a name can still be typed.
  loom.model.models = { ids: [], status: 401 };
  await test.click();
  await expect(result).toHaveText(`The model server at ${loom.model.baseUrl} refused the API key (HTTP 401). It needs an API key; enter one.`);
  await expect(result).toHaveClass(/failed/);

  // Another URL, where nothing listens: its address is in the sentence, and the picker falls back to typing.
  const url = dialog.getByRole('textbox', { name: /Model server/ });
  await url.fill(downUrl);
  await test.click(); // leaving the URL field asks the new server for its models too
  await expect(result).toHaveText(`Cannot reach the model server at ${downUrl} (connection refused). Check the URL and that the server is running.`);
  // Said once: the picker's note does not repeat the test's sentence.
  await expect(dialog.getByText(/Cannot reach the model server/)).toHaveCount(1);
  await expect(dialog.getByText("Type the model's name.")).toBeVisible();
  await expect(dialog.getByRole('textbox', { name: /^Model \(/ })).toHaveValue('gpt-5');

  // Nothing was saved by testing.
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  expect(await loom.mode.backend.handlers['settings.get']({})).toMatchObject({ baseUrl: loom.model.baseUrl, model: 'gemma4' });
});

test("the header's model button changes this session's model for the next message, recorded in Info", async ({ page, loom }) => {
  loom.model.enqueue({ text: 'First reply.' }, SUMMARY('Model switch'), { text: 'Second reply.' });
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'one');
  await expect(transcript(page).getByText('First reply.')).toBeVisible();

  await page.getByRole('button', { name: 'Model: gemma4' }).click();
  const dialog = page.getByRole('dialog', { name: 'Model for this session' });
  await dialog.getByRole('combobox', { name: 'Model' }).selectOption('scripted-model');
  await dialog.getByRole('button', { name: 'Use this model' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('button', { name: 'Model: scripted-model' })).toBeVisible();

  await send(page, 'two');
  await expect(transcript(page).getByText('Second reply.')).toBeVisible();
  const chatModels = loom.model.requests.filter((r) => r.body.tools).map((r) => r.body.model);
  expect(chatModels).toEqual(['gemma4', 'scripted-model']);
  // The default for new sessions is unchanged.
  expect((await loom.mode.backend.handlers['settings.get']({})).model).toBe('gemma4');

  await page.getByRole('button', { name: 'Info' }).click();
  const changes = page.getByRole('table', { name: 'Model changes' });
  await expect(changes.getByRole('row').nth(1)).toContainText(/gemma4\s*scripted-model\s*4$/);
});

test('each message shows its facts: time, and for a reply its model, tokens, cost, latency and speed', async ({ page, loom }) => {
  loom.model.enqueue({ chunks: ['Facts ', 'are ', 'here.'], usage: { prompt_tokens: 1234, completion_tokens: 56 }, chunkDelayMs: 30 }, SUMMARY('Facts'));
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'facts please');

  const reply = transcript(page).getByRole('article', { name: 'Assistant' });
  const facts = reply.locator('.msg-facts');
  await expect(facts).toContainText('gemma4 · 1,234 in · 56 out');
  await expect(facts).toContainText(/ · \d+\.\d\d s to first token · \d+(\.\d)? tok\/s$/);
  // Your message has its time.
  const stored = loom.store.getTranscriptFacts(nth(loom.store.list(), 0).id);
  await expect(transcript(page).getByRole('article', { name: 'You' }).locator('.msg-facts')).toHaveText(new Date(stored[1]!.at).toLocaleString('en-US'));
});

test('copy buttons put the code, the Markdown and the plain text on the clipboard, and say so', async ({ page, context, loom }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(loom.url).origin });
  const markdown = 'Run **this** with [npm](https://npmjs.com):\n\n```sh\nnpm test -- --watch\n```';
  loom.model.enqueue({ text: markdown }, SUMMARY('Copying'));
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'How do I run the tests?');
  const reply = transcript(page).getByRole('article', { name: 'Assistant' });
  // Runs in the page (test files are type-checked without the DOM library).
  const clipboard = () =>
    page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText());

  const copyCode = reply.getByRole('button', { name: 'Copy sh code' });
  await copyCode.click();
  await expect(reply.locator('.code-block').getByRole('button', { name: 'Copied' })).toBeVisible();
  expect(await clipboard()).toBe('npm test -- --watch');

  await reply.getByRole('button', { name: 'Copy message as Markdown' }).click();
  await expect(reply.getByRole('status').filter({ hasText: 'Copy message as Markdown: copied' })).toBeAttached();
  expect(await clipboard()).toBe(markdown);

  // From the keyboard, too.
  await reply.getByRole('button', { name: 'Copy text of the message' }).focus();
  await page.keyboard.press('Enter');
  await expect(reply.getByRole('status').filter({ hasText: 'Copy text of the message: copied' })).toBeAttached();
  expect(await clipboard()).toBe('Run this with npm (https://npmjs.com):\n\nnpm test -- --watch');

  await transcript(page).getByRole('article', { name: 'You' }).getByRole('button', { name: 'Copy message as Markdown' }).click();
  expect(await clipboard()).toBe('How do I run the tests?');
});

test('a session with no model recorded asks for one, and the first choice is recorded from none', async ({ page, loom }) => {
  const { id } = loom.store.create({ title: 'Imported long ago', messages: [{ role: 'user', content: 'hello' }], cwd: loom.projectDir });
  await openLoom(page, loom);
  await sidebarRow(page, 'Imported long ago')
    .getByRole('button', { name: /^Imported long ago/ })
    .click();
  await page.getByRole('button', { name: 'Model: default' }).click();
  const dialog = page.getByRole('dialog', { name: 'Model for this session' });
  const picker = dialog.getByRole('combobox', { name: 'Model' });
  await expect(picker).toHaveValue('');
  await expect(dialog.getByRole('button', { name: 'Use this model' })).toBeDisabled();
  await picker.selectOption('gemma4');
  await dialog.getByRole('button', { name: 'Use this model' }).click();
  await expect(page.getByRole('button', { name: 'Model: gemma4' })).toBeFocused();
  expect(loom.store.getModelChanges(id)).toEqual([{ at: expect.any(String), from: null, to: 'gemma4', transcript_index: 1 }]);
});

test("a tool result's card copies the result as the user reads it, without Loom's fences", async ({ page, context, loom }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(loom.url).origin });
  const calls = [{ id: 'c1', type: 'function' as const, function: { name: 'read_file', arguments: '{"path":"notes.md"}' } }];
  loom.store.create({
    title: 'Read notes',
    cwd: loom.projectDir,
    messages: [
      { role: 'user', content: '<user_input>\nRead the notes\n</user_input>' },
      { role: 'assistant', content: null, tool_calls: calls },
      { role: 'tool', tool_call_id: 'c1', content: '<tool_result name="read_file">\n1: hello\n2: world\n</tool_result>' },
    ],
  });
  await openLoom(page, loom);
  await sidebarRow(page, 'Read notes')
    .getByRole('button', { name: /^Read notes/ })
    .click();
  const card = transcript(page).getByRole('group', { name: 'Result of read_file' });
  await card.locator('summary').click();
  await card.getByRole('button', { name: 'Copy result of read_file' }).click();
  await expect(card.getByRole('button', { name: 'Copied' })).toBeVisible();
  expect(
    await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText()),
  ).toBe('1: hello\n2: world');
});

test("the session model dialog states the model's window: Info shows it and the budget follows", async ({ page, loom }) => {
  loom.model.enqueue({ text: 'First reply.' }, SUMMARY('Window'));
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'one');
  await expect(transcript(page).getByText('First reply.')).toBeVisible();

  await page.getByRole('button', { name: 'Model: gemma4' }).click();
  const dialog = page.getByRole('dialog', { name: 'Model for this session' });
  await dialog.getByRole('spinbutton', { name: 'Context window of this model (tokens)' }).fill('8192');
  await dialog.getByRole('button', { name: 'Use this model' }).click();
  await expect(dialog).toBeHidden();

  await page.getByRole('button', { name: 'Info' }).click();
  const info = page.getByRole('dialog', { name: 'Session info' });
  await expect(info).toContainText('Model window8,192 tokens, from the Model window setting');
  const sessionId = nth((await loom.mode.backend.handlers['sessions.list']({ limit: 1 })).sessions, 0).id;
  expect(await loom.mode.backend.handlers['chat.context']({ sessionId })).toMatchObject({ maxContextTokens: 6_144 });
});

test("an imported session's foreign model is not sent: the next turn offers the server's models", async ({ page, loom }) => {
  const folder = path.join(loom.dataDir, 'claude-projects');
  writeFile(path.join(folder, '-home-ada-lexer', `${CLAUDE_SESSION}.jsonl`), jsonl(claudeMain()));
  await runImport(loom.store, await importFiles({ source: 'claude-code', path: folder, home: loom.dataDir }));
  loom.model.models = { ids: ['gemma4', 'qwen3'] };
  loom.model.enqueue({ text: 'Going on with gemma4.' }, SUMMARY('Lexer'));

  await openLoom(page, loom);
  await sidebarRow(page, 'Lexer zebra fix')
    .getByRole('button', { name: /^Lexer zebra fix/ })
    .first()
    .click();
  await expect(page.getByRole('button', { name: 'Model: claude-sonnet-4-5' })).toBeVisible();
  await send(page, 'Go on');

  const dialog = page.getByRole('dialog', { name: 'Model for this session' });
  await expect(dialog.getByText(/^Claude Code recorded this session with the model claude-sonnet-4-5, which Loom does not send/)).toBeVisible();
  const picker = dialog.getByRole('combobox', { name: 'Model' });
  await expect(picker.getByRole('option')).toHaveText(['Choose a model', 'gemma4', 'qwen3', 'Type another name…']);
  expect(loom.model.requests).toHaveLength(0);
  // What was typed is kept for sending again.
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('Go on');

  await picker.selectOption('gemma4');
  await dialog.getByRole('button', { name: 'Use this model' }).click();
  await expect(dialog).toBeHidden();
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(transcript(page).getByText('Going on with gemma4.')).toBeVisible();
  expect(loom.model.requests[0]?.body.model).toBe('gemma4');
});
