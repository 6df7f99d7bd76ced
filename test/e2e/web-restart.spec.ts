/**
 * The browser mode restarted on the same port, with a new access token: the open page
 * says in one line what to do and stops retrying its event stream; pasting the new URL
 * into the same tab (only the fragment changes, which loads nothing) is enough.
 */
import { expect, newSession, openLoom, restartLoom, send, test } from './fixtures';

test('after a restart the page says to open the new URL, stops retrying, and takes the new URL pasted into the same tab', async ({ page, loom }) => {
  await page.clock.install();
  const events: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/api/events') events.push(request.url());
  });
  await openLoom(page, loom);
  await expect.poll(() => events.length).toBe(1);

  const restarted = await restartLoom(loom, loom.mode.server.port);
  try {
    expect(restarted.url).not.toBe(loom.url);
    // The stream retries while the server is away, then hears the refusal once.
    await page.clock.runFor(2000);
    const notice = page.getByRole('alert').filter({ hasText: 'The Loom server restarted with a new access token: open the new URL it printed' });
    await expect(notice).toBeVisible();
    const refused = events.length;
    await page.clock.runFor(10_000);
    // A round trip after the timers ran: any retry they started was requested before it.
    await page.evaluate(() => fetch('/').then((response) => response.status));
    expect(events.length).toBe(refused);

    await page.goto(restarted.url);
    await expect(page.getByRole('alert')).toHaveCount(0);
    await page.getByRole('button', { name: 'New session' }).first().click();
    await expect(page.getByRole('textbox', { name: 'Message' })).toBeEnabled();
    expect(restarted.backend.store.list()).toHaveLength(1);
    // The token left the address bar again.
    expect(page.url()).not.toContain('token');
  } finally {
    await restarted.close();
  }
});

test('after a restart a message sent says once that the URL changed, not again in the chat', async ({ page, loom }) => {
  await openLoom(page, loom);
  await newSession(page);
  const restarted = await restartLoom(loom, loom.mode.server.port);
  try {
    await send(page, 'Are you there?');
    const notice = page.getByRole('alert').filter({ hasText: 'The Loom server restarted with a new access token' });
    await expect(notice.first()).toBeVisible();
    // The refused send is over once the message box takes a message again.
    await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
    await page.evaluate(() => fetch('/').then((response) => response.status));
    await expect(notice).toHaveCount(1);
  } finally {
    await restarted.close();
  }
});
