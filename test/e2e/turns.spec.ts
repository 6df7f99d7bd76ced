/**
 * Issue 9, as a new user met it: a message sent again after a failure, banners about an
 * earlier turn, a composer held busy by the listing summary, where a fork's tab opens, a
 * reload mid-reply, and a stopped reply that is kept and continued.
 */
import type { Page } from '@playwright/test';
import { SessionStore } from '../../src/core/store/session-store';
import { nth } from '../support/elements';
import { expect, newSession, openLoom, send, sessionAction, SUMMARY, test, transcript } from './fixtures';

/** A 500 for the first try and each of the client's 3 retries, with no wait between them. */
const SERVER_DOWN = Array.from({ length: 4 }, () => ({ status: 500, error: 'upstream exploded', retryAfter: 0 }));

/** A scripted reply part that waits until the test lets it go (each test also lets it go in a finally). */
function held(): { resume: Promise<void>; release: () => void } {
  let release = () => {};
  const resume = new Promise<void>((resolve) => (release = resolve));
  return { resume, release };
}

function tabStrip(page: Page) {
  return page.getByRole('tablist', { name: 'Open sessions' }).getByRole('tab');
}

test('a message sent again after the model server failed is shown and sent once, and the failure banner goes', async ({ page, loom }) => {
  loom.model.enqueue(...SERVER_DOWN, { text: 'Here now.' }, SUMMARY('Checking in'));
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Are you there?');
  // One banner: the retries' line gave way to the failure.
  await expect(page.getByRole('alert').filter({ hasText: /exploded/ })).toContainText('The server failed; try again, or check its logs.');
  await expect(
    page
      .getByRole('status')
      .or(page.getByRole('alert'))
      .filter({ hasText: /model server/ }),
  ).toHaveCount(1);
  const box = page.getByRole('textbox', { name: 'Message' });
  await expect(box).toHaveValue('Are you there?');

  await box.press('Enter');
  await expect(transcript(page).getByText('Here now.')).toBeVisible();
  await expect(transcript(page).getByRole('article', { name: 'You' })).toHaveCount(1);
  await expect(page.getByText(/model server/)).toHaveCount(0);
  await expect(page.getByRole('alert').filter({ hasText: /exploded/ })).toHaveCount(0);
  const retried = nth(loom.model.requests, 4).body.messages;
  expect(retried.filter((m: { role: string; content: string }) => m.role === 'user' && m.content.includes('Are you there?'))).toHaveLength(1);
});

test('the composer is free once the reply shows: the listing summary written after it holds nothing up', async ({ page, loom }) => {
  const summary = held();
  loom.model.enqueue(
    { text: 'First answer.' },
    { text: 'A late label', pauseAfterChunks: 1, resume: summary.resume },
    { text: 'Second answer.' },
    SUMMARY('Two questions'),
  );
  try {
    await openLoom(page, loom);
    await newSession(page);
    await send(page, 'hello');
    await expect(transcript(page).getByText('First answer.')).toBeVisible();
    await loom.model.waitForRequests(2);
    await expect(page.getByRole('button', { name: 'Stop' })).toBeHidden();
    await send(page, 'and then?');
    await expect(transcript(page).getByText('Second answer.')).toBeVisible();
  } finally {
    summary.release();
  }
});

test('a fork opens right after its parent tab, scrolled into view', async ({ page, loom }) => {
  await openLoom(page, loom);
  for (let n = 1; n <= 12; n++) {
    await page.getByRole('button', { name: 'New tab with a new session' }).click();
    await expect(tabStrip(page)).toHaveCount(n);
  }
  const first = nth(
    loom.store.list().sort((a, b) => a.created_at.localeCompare(b.created_at)),
    0,
  );
  const second = await tabStrip(page).nth(1).textContent();
  // The strip shows its end, as after opening the newest tab.
  await page.getByRole('tablist', { name: 'Open sessions' }).evaluate((strip) => (strip.scrollLeft = strip.scrollWidth));
  await expect(tabStrip(page).first()).not.toBeInViewport();

  // A new session is listed from its first message on (here from another connection, as `loom` would).
  const other = SessionStore.open(loom.dataDir);
  other.appendMessage(first.id, { role: 'user', content: '<user_input>\nFirst words\n</user_input>' });
  other.close();
  await sessionAction(page, `Session ${first.id.slice(0, 8)}`, 'Fork');
  await expect(tabStrip(page)).toHaveCount(13);
  const fork = loom.store.list().find((s) => s.parent_id === first.id)!;
  expect(fork.title).toBe(`First words · fork at ${fork.message_count}`);
  const forkTab = tabStrip(page).nth(1);
  await expect(forkTab).toHaveText(fork.title!);
  await expect(forkTab).toHaveAttribute('aria-selected', 'true');
  await expect(forkTab).toBeInViewport();
  await expect(tabStrip(page).nth(2)).toHaveText(second!);
});

test('a window reloaded mid-reply shows the whole reply so far, then the rest', async ({ page, loom }) => {
  const rest = held();
  loom.model.enqueue({ chunks: ['Before the reload, ', 'and after it.'], pauseAfterChunks: 2, resume: rest.resume }, SUMMARY('Reloading'));
  try {
    await openLoom(page, loom);
    await newSession(page);
    await send(page, 'Say two things');
    const replying = page.getByRole('article', { name: 'Assistant (replying)' });
    await expect(replying).toContainText('Before the reload,');
    // The open tab is saved (debounced) before the reload, so the same tab comes back.
    const session = nth(loom.store.list(), 0);
    await expect.poll(async () => (await loom.mode.backend.handlers['settings.get']({})).activeTab).toBe(session.id);

    await page.reload();
    await expect(replying).toContainText('Before the reload,');
    rest.release();
    await expect(transcript(page).getByRole('article', { name: 'Assistant' })).toHaveText(/Before the reload, and after it\./);
  } finally {
    rest.release();
  }
});

test('Stop keeps what streamed, marked as stopped; Continue resumes from it and the Stopped notice goes', async ({ page, loom }) => {
  loom.model.enqueue({ chunks: ['Once upon a time, ', 'there was more.'], stallAfterChunks: 2 }, { text: 'there was a dragon.' }, SUMMARY('A story'));
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Tell me a story');
  await expect(page.getByRole('article', { name: 'Assistant (replying)' })).toContainText('Once upon a time,');
  await page.getByRole('button', { name: 'Stop' }).click();

  const stopped = transcript(page).getByRole('article', { name: 'Assistant (stopped)' });
  await expect(stopped).toContainText('Once upon a time,');
  await expect(stopped).toContainText('Stopped by you.');
  const stopNotice = page.getByRole('alert').filter({ hasText: /^Stopped:/ });
  await expect(stopNotice).toBeVisible();

  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(transcript(page).getByText('there was a dragon.')).toBeVisible();
  await expect(stopNotice).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Continue' })).toHaveCount(0);
  const continued = nth(loom.model.requests, 1).body.messages.slice(-2);
  expect(continued).toEqual([
    { role: 'assistant', content: 'Once upon a time, ' },
    { role: 'user', content: '<user_input>\nContinue from where you stopped.\n</user_input>' },
  ]);

  await page.reload();
  await expect(transcript(page).getByRole('article', { name: 'Assistant (stopped)' })).toContainText('Once upon a time,');
});
