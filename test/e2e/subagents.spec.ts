/**
 * Sub-agents in the window (docs/DESIGN.md#sub-agents): each run_subagent call's card in
 * the parent's transcript with its live status, the child opened in a tab beside its
 * parent (read-only while it runs), the children under their parent in the sidebar, and a
 * child's approval in the parent's tab, named by the child's agent and task.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expectNoAxeViolations } from './axe';
import { SUMMARY, expect, newSession, openLoom, send, sidebarRow, test, transcript } from './fixtures';

const subagent = (id: string, agent: string, task: string) => ({ id, name: 'run_subagent', arguments: { agent, task } });

function card(page: Page, n: number) {
  return transcript(page)
    .getByRole('group', { name: /^Sub-agent / })
    .nth(n);
}

test('sub-agent cards show their live status, and a child opens read-only in a tab beside its parent', async ({ page, loom }) => {
  let release!: () => void;
  const children = new Promise<void>((resolve) => (release = resolve));
  // The two children run at once and take either reply: both are the same, held until released.
  const childReply = { text: 'Found it in the source.', pauseAfterChunks: 1, resume: children };
  loom.model.enqueue(
    { toolCalls: [subagent('s1', 'explore', 'find the parser'), subagent('s2', 'explore', 'find the tests')] },
    childReply,
    childReply,
    { text: 'Both found.' },
    SUMMARY('Looking around'),
  );
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Look around');

  await expect(card(page, 0).getByRole('status')).toHaveText('running');
  await expect(card(page, 1).getByRole('status')).toHaveText('running');
  await expect(card(page, 0)).toContainText('find the parser');
  await expect(card(page, 1)).toContainText('find the tests');
  // One line for the two, whose cards say the rest; no "Running run_subagent…" per child.
  await expect(transcript(page).getByRole('status').filter({ hasText: 'sub-agents are working' })).toHaveText('2 sub-agents are working…');
  await expect(transcript(page).getByText(/Running run_subagent/)).toHaveCount(0);
  await expectNoAxeViolations(page);

  await card(page, 0).getByRole('button', { name: "Open the explore sub-agent's session" }).click();
  const tabs = page.getByRole('tablist', { name: 'Open sessions' }).getByRole('tab');
  await expect(tabs).toHaveCount(2);
  await expect(tabs.nth(1)).toHaveAccessibleName(/explore: find the parser/);
  await expect(tabs.nth(1)).toHaveAttribute('aria-selected', 'true');
  await expect(transcript(page).getByRole('article', { name: 'You' })).toContainText('find the parser');
  await expect(page.getByText('A sub-agent is running; this session is read-only until it ends.')).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeDisabled();

  release();
  await expect(transcript(page).getByRole('article', { name: 'Assistant' })).toContainText('Found it in the source.');
  await expect(page.getByText('A sub-agent is running; this session is read-only until it ends.')).toBeHidden();

  await tabs.nth(0).click();
  await expect(transcript(page).getByText('Both found.')).toBeVisible();
  for (const n of [0, 1]) {
    await expect(card(page, n).getByRole('status')).toHaveText('done');
    await expect(card(page, n)).toContainText(/Tokens\s*[1-9]/);
  }

  // Children are under their parent in the sidebar, folded away until asked.
  const disclosure = sidebarRow(page, 'Looking around').getByRole('button', { name: '2 sub-agents' });
  await expect(disclosure).toHaveAttribute('aria-expanded', 'false');
  const childList = page.getByRole('list', { name: 'Sub-agents of Looking around' });
  await expect(childList).toBeHidden();
  await disclosure.click();
  await expect(disclosure).toHaveAttribute('aria-expanded', 'true');
  await expect(childList.getByRole('listitem')).toHaveText([/explore: find the parser/, /explore: find the tests/]);
  await expectNoAxeViolations(page);

  // After a reload the cards read their runs from the store.
  await page.reload();
  await expect(card(page, 1).getByRole('status')).toHaveText('done');
});

test("a child's approval appears in its parent's tab, naming the child's agent and task", async ({ page, loom }) => {
  loom.model.enqueue(
    { toolCalls: [subagent('s1', 'build', 'write the notes')] },
    { toolCalls: [{ name: 'write_file', arguments: { path: 'notes.md', content: 'hello\n' } }] },
    { text: 'Wrote them.' },
    { text: 'The notes are written.' },
    SUMMARY('Notes'),
  );
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Write the notes');

  const approval = page.getByRole('group', { name: 'Approval needed: write_file' });
  await expect(approval).toContainText('build sub-agent, "write the notes"');
  await expect(card(page, 0).getByRole('status')).toHaveText('waiting for approval');
  await expectNoAxeViolations(page);

  await approval.getByRole('button', { name: 'Allow once' }).click();
  await expect(card(page, 0).getByRole('status')).toHaveText('done');
  await expect(card(page, 0)).toContainText('write_file');
  expect(fs.readFileSync(path.join(loom.projectDir, 'notes.md'), 'utf8')).toBe('hello\n');
});
