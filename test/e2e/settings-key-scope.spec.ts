/**
 * Guarantee 8 as the user meets it: the settings dialog warns that a new server URL
 * forgets the saved key, and after saving one the new server gets no key at all.
 */
import { startScriptedServer } from '../support/scripted-server';
import { expect, newSession, openLoom, send, SUMMARY, test } from './fixtures';

test('changing the server URL forgets the saved API key, and the dialog says so first', async ({ page, loom }) => {
  const other = await startScriptedServer();
  try {
    await openLoom(page, loom);
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    const warning = dialog.getByText('Changing the server URL forgets the saved API key; enter it again for the new server.');

    await page.getByRole('button', { name: 'Settings' }).click();
    await dialog.getByLabel(/^API key/).fill('sk-only-for-the-first-server');
    await expect(warning).toBeHidden();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();

    await page.getByRole('button', { name: 'Settings' }).click();
    const url = dialog.getByRole('textbox', { name: /Model server/ });
    await url.fill(other.baseUrl);
    await expect(warning).toBeVisible();
    await url.fill(loom.model.baseUrl);
    await expect(warning).toBeHidden();
    await url.fill(other.baseUrl);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();

    await page.getByRole('button', { name: 'Settings' }).click();
    await expect(dialog.getByText('(none stored)')).toBeVisible();
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    other.enqueue({ text: 'Hello from the other server.' }, SUMMARY('Other'));
    await newSession(page);
    await send(page, 'Hi');
    await expect(page.getByText('Hello from the other server.')).toBeVisible();
    // The listing summary is asked for after the reply is shown: wait for it, however busy the machine.
    const requests = await other.waitForRequests(2);
    expect(requests.map((r) => r.headers.authorization ?? 'none')).toEqual(['none', 'none']);
    expect(loom.model.requests).toEqual([]);
  } finally {
    await other.close();
  }
});
