/**
 * Compaction seen from the UI: "Compact now" (its dialog's focus line left empty) shows progress, then a marker in the
 * transcript with the before → after figures while every message stays scrollable; the
 * info dialog shows the compaction and the usage by kind; search still finds the turn
 * that was compacted away; after a reload the marker is still where the compaction happened.
 */
import type { Locator, Page } from '@playwright/test';
import { nth } from '../support/elements';
import { SUMMARY, expect, newSession, openLoom, send, sidebarRow, test, transcript } from './fixtures';

const LONG = ' The heron waits in the shallows, perfectly still, until a fish swims close.'.repeat(12);

test('a forced compaction shows its marker, the info dialog its figures, and search still finds the old turn', async ({ page, loom }) => {
  // The summariser's reply is held until the test has seen the progress indicator.
  let finishSummary!: () => void;
  const summaryMayFinish = new Promise<void>((resolve) => (finishSummary = resolve));
  loom.model.enqueue(
    { text: `Zebrafish are small and striped.${LONG}` },
    SUMMARY('Fish and herons'),
    { text: `Herons eat them.${LONG}` },
    { text: 'Talked about zebrafish and herons.', usage: { prompt_tokens: 321, completion_tokens: 45 }, pauseAfterChunks: 0, resume: summaryMayFinish },
    { text: 'Kingfishers dive for them.' },
  );
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Tell me about zebrafish');
  await expect(transcript(page).getByText('Zebrafish are small and striped.')).toBeVisible();
  await send(page, 'And herons?');
  await expect(transcript(page).getByText('Herons eat them.')).toBeVisible();

  await page.getByRole('button', { name: 'Compact now' }).click();
  await page.getByRole('dialog', { name: 'Compact now' }).getByRole('button', { name: 'Compact', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Compacting the context' })).toBeVisible();
  finishSummary();
  const marker = transcript(page).getByRole('note', { name: 'Compaction 1' });
  await expect(marker).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Compacting the context' })).toBeHidden();

  const session = nth(loom.store.list(), 0);
  const recorded = nth(loom.store.getCompactions(session.id), 0);
  const figures = (n: number) => n.toLocaleString('en-US');
  await expect(marker).toContainText(`${figures(recorded.before_tokens)} → ${figures(recorded.after_tokens)} tokens`);
  expect(recorded.after_tokens).toBeLessThan(recorded.before_tokens);
  // The full transcript is still there to scroll through.
  await expect(transcript(page).getByText('Tell me about zebrafish')).toBeAttached();
  const meter = page.getByRole('meter', { name: 'Context' });
  await expect(meter).toHaveAttribute('aria-valuenow', String(recorded.after_tokens));

  await page.getByRole('button', { name: 'Info' }).click();
  const info = page.getByRole('dialog', { name: 'Session info' });
  await expect(info.getByRole('definition').nth(0)).toHaveText(session.id);
  await expect(info).toContainText(`Messages${session.message_count - 1}`);
  await expect(info).toContainText('Compactions1');
  const compactions = info.getByRole('table', { name: 'Compactions' });
  await expect(compactions.getByRole('row')).toHaveCount(2);
  await expect(compactions.getByRole('row').nth(1)).toContainText(`${figures(recorded.before_tokens)} → ${figures(recorded.after_tokens)}`);
  const usage = info.getByRole('table', { name: 'Usage' });
  await expect(usage.getByRole('row', { name: /^compaction/ })).toHaveText(/compaction\s*1\s*321\s*45\s*\$0\.00/);
  await expect(usage.getByRole('row', { name: /^chat/ })).toContainText(/chat\s*2/);
  await expect(usage.getByRole('row', { name: /^summary/ })).toContainText(/summary\s*1/);
  await page.keyboard.press('Escape');
  await expect(info).toBeHidden();

  // The first turn is no longer in the working context, yet search finds it.
  expect(JSON.stringify(loom.store.getContext(session.id))).not.toContain('Tell me about zebrafish');
  await page.getByRole('searchbox', { name: 'Search sessions' }).fill('zebrafish');
  const hit = page.getByRole('list', { name: 'Search results' }).getByRole('listitem');
  await expect(hit).toHaveCount(1);
  await expect(hit.locator('mark').first()).toHaveText(/zebrafish/i);
  await page.getByRole('searchbox', { name: 'Search sessions' }).fill('');

  // The conversation goes on after the compaction; a reload reads the marker's place from the store.
  await send(page, 'And kingfishers?');
  await expect(transcript(page).getByText('Kingfishers dive for them.')).toBeVisible();
  await expectMarkerBetween(page, 'Herons eat them.', 'And kingfishers?');
  await page.reload();
  await sidebarRow(page, 'Fish and herons')
    .getByRole('button', { name: /Fish and herons/ })
    .first()
    .click();
  await expect(transcript(page).getByText('Kingfishers dive for them.')).toBeVisible();
  await expectMarkerBetween(page, 'Herons eat them.', 'And kingfishers?');
});

/** The compaction marker sits right below the message containing `above` and above the one containing `below`. */
async function expectMarkerBetween(page: Page, above: string, below: string): Promise<void> {
  const rows = transcript(page).locator('article, [role="note"]');
  const message = (text: string): Locator => transcript(page).getByRole('article').filter({ hasText: text });
  const marker = transcript(page).getByRole('note', { name: 'Compaction 1' });
  await expect(marker).toBeVisible();
  const top = async (l: Locator) => (await l.boundingBox())!.y;
  await expect
    .poll(async () => {
      const order = await Promise.all([message(above), marker, message(below)].map(top));
      return nth(order, 0) < nth(order, 1) && nth(order, 1) < nth(order, 2);
    })
    .toBe(true);
  // Nothing else between them: the marker is the row right after the message above.
  const labels = await rows.evaluateAll((els) =>
    els
      .sort((a, b) => a.getBoundingClientRect().y - b.getBoundingClientRect().y)
      .map((el) => el.getAttribute('aria-label') + ':' + (el.textContent ?? '').slice(0, 40)),
  );
  const at = labels.findIndex((l) => l.startsWith('Compaction 1:'));
  expect(labels[at - 1]).toContain(above.slice(0, 20));
  expect(labels[at + 1]).toContain(below);
}
