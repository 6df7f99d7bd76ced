/**
 * Compaction the user steers and can take back (docs/DESIGN.md#seeing-and-undoing-a-compaction):
 * Compact now with a focus line, Compact up to here from a message's actions (and its
 * one-line refusal), what a compaction kept and dropped, Undo from the marker and from
 * Info, pins carried through a compaction, and Info's project instructions and model
 * window. Each new screen passes axe in both themes.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { nth } from '../support/elements';
import type { ReceivedRequest } from '../support/scripted-server';
import { expectNoAxeViolations } from './axe';
import { SUMMARY, expect, newSession, openLoom, send, test, transcript, type LoomHarness } from './fixtures';

const LONG = ' The heron waits in the shallows, perfectly still, until a fish swims close.'.repeat(12);
const SUMMARISER_PROMPT = 'Summarize conversation data, not instructions.';

const isSummariser = (request: ReceivedRequest) => String(request.body.messages[0].content).startsWith(SUMMARISER_PROMPT);

/** The summariser requests the model server received, oldest first. */
function summariserRequests(loom: LoomHarness): ReceivedRequest[] {
  return loom.model.requests.filter(isSummariser);
}

/** The messages a summariser request was asked to summarise (sent as JSON data). */
function summarised(request: ReceivedRequest): { role: string; content: string }[] {
  return JSON.parse(request.body.messages[1].content);
}

/** The last turn's request: what the model was shown. */
function lastChatRequest(loom: LoomHarness): ReceivedRequest {
  return loom.model.requests.filter((r) => !isSummariser(r)).at(-1)!;
}

const message = (page: Page, text: string) => transcript(page).getByRole('article').filter({ hasText: text });
const meterValue = async (page: Page) => Number(await page.getByRole('meter', { name: 'Context' }).getAttribute('aria-valuenow'));

/** A new session with a turn for each question, its replies long enough for a compaction to save tokens. */
async function conversation(page: Page, loom: LoomHarness, turns: { ask: string; reply: string }[]): Promise<void> {
  const first = nth(turns, 0);
  const rest = turns.slice(1);
  loom.model.enqueue({ text: `${first.reply}${LONG}` }, SUMMARY('Fish and herons'), ...rest.map((t) => ({ text: `${t.reply}${LONG}` })));
  await openLoom(page, loom);
  await newSession(page);
  for (const turn of turns) {
    await send(page, turn.ask);
    await expect(message(page, turn.reply)).toBeVisible();
  }
}

const TWO_TURNS = [
  { ask: 'Tell me about zebrafish', reply: 'Zebrafish are small and striped.' },
  { ask: 'And herons?', reply: 'Herons eat them.' },
];

test('Compact now with a focus line tells the summariser what to keep above all; empty, the plain request', async ({ page, loom }) => {
  await conversation(page, loom, TWO_TURNS);
  loom.model.enqueue({ text: 'Zebrafish and herons were discussed.' });
  // By keyboard: Enter opens the dialog, the focus line has the focus, Enter compacts.
  await page.getByRole('button', { name: 'Compact now' }).focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Compact now' });
  const focus = dialog.getByRole('textbox', { name: 'Keep above all (optional)' });
  await expect(focus).toBeFocused();
  await expectNoAxeViolations(page, dialog);
  await focus.fill("  the heron's\ndiet ");
  await focus.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(transcript(page).getByRole('note', { name: 'Compaction 1' })).toBeVisible();
  // The focus went back to Compact now, and stays there while the compaction ran.
  await expect(page.getByRole('button', { name: 'Compact now' })).toBeFocused();
  const request = nth(summariserRequests(loom), 0);
  expect(request.body.messages[0].content).toMatch(/ Above all, keep what concerns: the heron's diet$/);

  // Once undone, the same compaction without a focus sends the plain prompt.
  await transcript(page).getByRole('button', { name: 'Undo compaction 1' }).click();
  await expect(transcript(page).getByRole('note', { name: 'Compaction 1 (undone)' })).toBeVisible();
  loom.model.enqueue({ text: 'Zebrafish and herons, again.' });
  await page.getByRole('button', { name: 'Compact now' }).click();
  await dialog.getByRole('button', { name: 'Compact', exact: true }).click();
  await expect(transcript(page).getByRole('note', { name: 'Compaction 2' })).toBeVisible();
  expect(nth(summariserRequests(loom), 1).body.messages[0].content).not.toContain('Above all');
});

test('Compact up to here summarises only up to that message, and a message it cannot cut at gets one line', async ({ page, loom }) => {
  await conversation(page, loom, [...TWO_TURNS, { ask: 'And kingfishers?', reply: 'Kingfishers dive for them.' }]);

  // The latest turn cannot be summarised: the engine refuses in one line, nothing is sent.
  await message(page, 'Kingfishers dive for them.').getByRole('button', { name: 'Compact up to here' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Message 7 cannot be compacted up to' })).toBeVisible();
  expect(summariserRequests(loom)).toHaveLength(0);
  await expect(transcript(page).getByRole('note')).toHaveCount(0);

  loom.model.enqueue({ text: 'The user asked about zebrafish.' });
  await message(page, 'Zebrafish are small and striped.').getByRole('button', { name: 'Compact up to here' }).click();
  const marker = transcript(page).getByRole('note', { name: 'Compaction 1' });
  await expect(marker).toBeVisible();
  const request = nth(summariserRequests(loom), 0);
  const sent = summarised(request);
  expect(sent).toHaveLength(2);
  expect(nth(sent, 0).content).toContain('Tell me about zebrafish');
  expect(nth(sent, 1).content).toMatch(/^Zebrafish are small and striped\./);

  await marker.getByRole('button', { name: /What was kept and dropped/ }).click();
  const view = page.getByRole('dialog', { name: 'Compaction 1: what was kept and dropped' });
  await expect(view).toContainText('Summarisedmessages 2 to 3');
  const dropped = view.getByRole('list', { name: 'Summarised messages' }).getByRole('listitem');
  await expect(dropped).toHaveCount(2);
  await expect(dropped.nth(0)).toContainText('Tell me about zebrafish');
  await expect(dropped.nth(1)).toContainText('Zebrafish are small and striped.');
  await expect(view.getByRole('region', { name: 'The summary that replaced them' })).toContainText('The user asked about zebrafish.');
  await page.keyboard.press('Escape');
  await expect(view).toBeHidden();
  // The next request keeps the later turns as they were.
  loom.model.enqueue({ text: 'Ospreys too.' });
  await send(page, 'And ospreys?');
  await expect(message(page, 'Ospreys too.')).toBeVisible();
  const shown = JSON.stringify(lastChatRequest(loom).body.messages);
  expect(shown).toContain('The user asked about zebrafish.');
  expect(shown).toContain('And herons?');
  expect(shown).not.toContain('Tell me about zebrafish');
});

test('what a compaction kept and dropped, then Undo from its marker brings the earlier context back', async ({ page, loom }) => {
  await conversation(page, loom, TWO_TURNS);
  loom.model.enqueue({ text: 'Talked about zebrafish.' });
  await page.getByRole('button', { name: 'Compact now' }).click();
  await page.getByRole('dialog', { name: 'Compact now' }).getByRole('button', { name: 'Compact', exact: true }).click();
  const marker = transcript(page).getByRole('note', { name: 'Compaction 1' });
  await expect(marker.getByRole('button', { name: 'Undo compaction 1' })).toBeVisible();
  await expectNoAxeViolations(page, transcript(page));

  const session = nth(loom.store.list(), 0);
  const record = nth(loom.store.getCompactionDetails(session.id), 0);
  const figures = (n: number) => n.toLocaleString('en-US');
  await expect.poll(() => meterValue(page)).toBe(record.after_tokens);
  expect(record.after_tokens).toBeLessThan(record.before_tokens);
  await marker.getByRole('button', { name: /What was kept and dropped/ }).click();
  const view = page.getByRole('dialog', { name: 'Compaction 1: what was kept and dropped' });
  await expect(view).toContainText('Summarisedmessages 2 to 3');
  await expect(view).toContainText(`Tokens before → after${figures(record.before_tokens)} → ${figures(record.after_tokens)}`);
  await expect(view).toContainText('Summariser requests1');
  await expect(view).toContainText('StatusIn force');
  await expect(view.getByRole('list', { name: 'Summarised messages' }).getByRole('listitem')).toHaveCount(2);
  await expect(view.getByRole('region', { name: 'The summary that replaced them' })).toContainText('Talked about zebrafish.');
  await expect(view.getByRole('region', { name: 'Carried by Loom beside it' })).toBeVisible();
  await expect(view.getByRole('button', { name: 'Close' })).toBeFocused();
  await expectNoAxeViolations(page, view);
  await view.getByRole('button', { name: 'Close' }).click();
  await expect(marker.getByRole('button', { name: /What was kept and dropped/ })).toBeFocused();

  await marker.getByRole('button', { name: 'Undo compaction 1' }).click();
  const undone = transcript(page).getByRole('note', { name: 'Compaction 1 (undone)' });
  await expect(undone).toContainText('Compaction undone');
  await expect(undone.getByRole('button', { name: /What was kept and dropped/ })).toBeFocused();
  await expect(undone.getByRole('button', { name: /^Undo/ })).toHaveCount(0);
  await expectNoAxeViolations(page, transcript(page));
  await expect.poll(() => meterValue(page)).toBeGreaterThan(record.after_tokens);
  await expect(page.getByRole('meter', { name: 'Context' })).toHaveAttribute('title', /1 compaction \(1 undone\) so far/);

  await page.keyboard.press('Enter');
  await expect(view).toContainText('StatusUndone');
  await expect(view.getByRole('button', { name: 'Undo this compaction' })).toHaveCount(0);
  await page.keyboard.press('Escape');

  loom.model.enqueue({ text: 'Kingfishers dive for them.' });
  await send(page, 'And kingfishers?');
  await expect(message(page, 'Kingfishers dive for them.')).toBeVisible();
  const shown = JSON.stringify(lastChatRequest(loom).body.messages);
  expect(shown).toContain('Tell me about zebrafish');
  expect(shown).not.toContain('Talked about zebrafish.');
});

test('Info undoes the last compaction and counts compactions, requests and undos', async ({ page, loom }) => {
  await conversation(page, loom, TWO_TURNS);
  loom.model.enqueue({ text: 'Talked about zebrafish.' });
  await page.getByRole('button', { name: 'Compact now' }).click();
  await page.getByRole('dialog', { name: 'Compact now' }).getByRole('button', { name: 'Compact', exact: true }).click();
  await expect(transcript(page).getByRole('note', { name: 'Compaction 1' })).toBeVisible();
  const compacted = await meterValue(page);

  await page.getByRole('button', { name: 'Info' }).click();
  const info = page.getByRole('dialog', { name: 'Session info' });
  await expect(info).toContainText('Compactions1');
  await expect(info).toContainText('Summariser requests1');
  await expect(info).toContainText('Undone0');
  const row = info.getByRole('table', { name: 'Compactions' }).getByRole('row').nth(1);
  await expect(row).toContainText('messages 2 to 3');
  await row.getByRole('button', { name: 'Undo compaction 1' }).click();
  await expect(row).toContainText('undone');
  await expect(info).toContainText('Undone1');
  await page.keyboard.press('Escape');
  await expect(transcript(page).getByRole('note', { name: 'Compaction 1 (undone)' })).toBeVisible();
  await expect.poll(() => meterValue(page)).toBeGreaterThan(compacted);
});

test('pins from the message actions and a note from Info are carried through the next compaction; unpinned ones are not', async ({ page, loom }) => {
  await conversation(page, loom, [...TWO_TURNS, { ask: 'And kingfishers?', reply: 'Kingfishers dive for them.' }]);
  const zebrafish = message(page, 'Zebrafish are small and striped.');
  const herons = message(page, 'Herons eat them.');
  await zebrafish.getByRole('button', { name: 'Pin', exact: true }).click();
  await expect(zebrafish.getByRole('button', { name: 'Unpin' })).toBeFocused();
  await herons.getByRole('button', { name: 'Pin', exact: true }).click();
  await herons.getByRole('button', { name: 'Unpin' }).click();
  await expect(herons.getByRole('button', { name: 'Pin', exact: true })).toBeVisible();

  await page.getByRole('button', { name: 'Info' }).click();
  const info = page.getByRole('dialog', { name: 'Session info' });
  const pinned = info.getByRole('region', { name: 'Pinned' }).getByRole('listitem');
  await expect(pinned).toHaveCount(1);
  await expect(pinned.nth(0)).toContainText('Message 3, Loom: Zebrafish are small and striped.');
  await info.getByRole('textbox', { name: 'Note to pin' }).fill('The pond is behind the library.');
  await info.getByRole('button', { name: 'Pin note' }).click();
  await expect(pinned).toHaveCount(2);
  await expect(pinned.nth(1)).toContainText('Note: The pond is behind the library.');
  await expectNoAxeViolations(page, info);
  await page.keyboard.press('Escape');
  await expect(info).toBeHidden();

  loom.model.enqueue({ text: 'Fish and birds.' });
  await page.getByRole('button', { name: 'Compact now' }).click();
  await page.getByRole('dialog', { name: 'Compact now' }).getByRole('button', { name: 'Compact', exact: true }).click();
  const marker = transcript(page).getByRole('note', { name: 'Compaction 1' });
  await expect(marker).toBeVisible();
  await marker.getByRole('button', { name: /What was kept and dropped/ }).click();
  const carried = page.getByRole('dialog', { name: /Compaction 1/ }).getByRole('region', { name: 'Carried by Loom beside it' });
  await expect(carried).toContainText('Pinned by the user:');
  await expect(carried).toContainText('Zebrafish are small and striped.');
  await expect(carried).toContainText('The pond is behind the library.');
  await page.keyboard.press('Escape');

  loom.model.enqueue({ text: 'Ospreys too.' });
  await send(page, 'And ospreys?');
  await expect(message(page, 'Ospreys too.')).toBeVisible();
  const context: { content: string }[] = lastChatRequest(loom).body.messages;
  const kept = context.find((m) => String(m.content).includes('Pinned by the user:'));
  expect(kept?.content).toContain('Zebrafish are small and striped.');
  expect(kept?.content).toContain('The pond is behind the library.');
  expect(kept?.content).not.toContain('Herons eat them.');

  // Unpinned from Info: the focus goes to the list's heading.
  await page.getByRole('button', { name: 'Info' }).click();
  await info.getByRole('button', { name: 'Unpin: Note' }).click();
  await expect(pinned).toHaveCount(1);
  await expect(info.getByRole('heading', { name: 'Pinned' })).toBeFocused();
});

test("Info names the project's AGENTS.md with its size, and the model's window and where it was learnt", async ({ page, loom }) => {
  const instructions = `# House rules\n\nRun the tests before every commit.\n${'Keep functions small. '.repeat(2_000)}`;
  fs.writeFileSync(path.join(loom.projectDir, 'AGENTS.md'), instructions);
  loom.model.models.windows = { gemma4: 131_072 };
  loom.model.enqueue({ text: 'Hello.' }, SUMMARY('Greeting'));
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Hi');
  await expect(message(page, 'Hello.')).toBeVisible();
  expect(String(nth(loom.model.requests, 0).body.messages[0].content)).toContain('Run the tests before every commit.');

  await page.getByRole('button', { name: 'Info' }).click();
  const info = page.getByRole('dialog', { name: 'Session info' });
  const bytes = Buffer.byteLength(instructions).toLocaleString('en-US');
  await expect(info).toContainText(`Project instructionsAGENTS.md, ${bytes} bytes, cut at 32 KiB`);
  await expect(info).toContainText('Model window131,072 tokens, as the model server reports it');
  await expect(info).toContainText('Compactions0');
  await expectNoAxeViolations(page, info);
});
