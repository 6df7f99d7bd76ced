/**
 * Guarantee 4 as the user meets it: the settings dialog says which variables tools always
 * get, saves the names to pass on top, and refuses a malformed name with one message.
 */
import { expect, openLoom, test } from './fixtures';

test('the variables passed to tools are saved from the settings dialog; a malformed name is refused and nothing changes', async ({ page, loom }) => {
  await openLoom(page, loom);
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  const field = dialog.getByRole('textbox', { name: /Pass these environment variables to tools/ });

  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(dialog.getByText(/Tools always get PATH, HOME, LANG, LC_\*, TERM, TZ, USER, SHELL, TMPDIR/)).toBeVisible();
  await expect(field).toHaveValue('');
  await field.fill('GITHUB_TOKEN, NPM_TOKEN');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();

  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(field).toHaveValue('GITHUB_TOKEN NPM_TOKEN');
  await field.fill('GITHUB_TOKEN A=B');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText(/Environment variable names are letters, digits and _/)).toBeVisible();
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(field).toHaveValue('GITHUB_TOKEN NPM_TOKEN');
});
