/**
 * The settings dialog's own errors and the context budget: a refused save is said inside
 * the dialog (which stays open, nothing saved), a failed connection test is said once and
 * goes when the field is fixed, and any whole budget from 1,000 up is taken and reaches the
 * open tab's meter at once.
 */
import { startScriptedServer } from '../support/scripted-server';
import { SUMMARY, expect, newSession, openLoom, send, test, transcript } from './fixtures';

test('a refused save is said inside the dialog, which stays open with nothing saved', async ({ page, loom }) => {
  await openLoom(page, loom);
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('textbox', { name: /^Hub URL/ }).fill('postgres://me:***@elsewhere.example/loom');
  await dialog.getByRole('button', { name: 'Save' }).click();

  const refusal = 'Type the hub password: the saved one belongs to another user or hub.';
  await expect(dialog.getByRole('alert')).toHaveText(refusal);
  // Said once, where the user is looking: not in a banner behind the dialog.
  await expect(page.getByText(refusal)).toHaveCount(1);
  await expect(dialog).toBeVisible();
  expect((await loom.mode.backend.handlers['settings.get']({})).hubUrl).toBe('');

  // Editing the form takes the stale refusal away.
  await dialog.getByRole('textbox', { name: /^Hub URL/ }).fill('');
  await expect(dialog.getByRole('alert')).toHaveCount(0);
});

test('a failed connection test is said once and cleared when the URL is fixed', async ({ page, loom }) => {
  const down = await startScriptedServer();
  const downUrl = down.baseUrl;
  await down.close();
  await openLoom(page, loom);
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  const url = dialog.getByRole('textbox', { name: /Model server/ });
  const result = dialog.locator('.connection-result');

  await url.fill(downUrl);
  await dialog.getByRole('button', { name: 'Test connection' }).click();
  await expect(result).toHaveText(`Cannot reach the model server at ${downUrl} (connection refused). Check the URL and that the server is running.`);
  await expect(dialog.getByText(/Cannot reach the model server/)).toHaveCount(1);

  await url.fill(loom.model.baseUrl);
  await expect(result).toHaveText('');
  await dialog.getByRole('button', { name: 'Test connection' }).click();
  await expect(result).toHaveText(new RegExp(`^Connected to the model server at ${loom.model.baseUrl}`));
  await expect(dialog.getByText(/Cannot reach the model server/)).toHaveCount(0);
});

for (const budget of [8192, 32768, 131072]) {
  test(`a context budget of ${budget} is taken and the open tab's meter shows it at once`, async ({ page, loom }) => {
    loom.model.enqueue({ text: 'Hello.' }, SUMMARY('Greeting'));
    await openLoom(page, loom);
    await newSession(page);
    await send(page, 'Hi');
    await expect(transcript(page).getByText('Hello.')).toBeVisible();
    const meter = page.getByRole('meter', { name: 'Context' });
    await expect(meter).toHaveAttribute('aria-valuemax', '24000');

    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.getByRole('spinbutton', { name: 'Context budget (tokens)' }).fill(String(budget));
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    expect((await loom.mode.backend.handlers['settings.get']({})).maxContextTokens).toBe(budget);
    await expect(meter).toHaveAttribute('aria-valuemax', String(budget));
  });
}
