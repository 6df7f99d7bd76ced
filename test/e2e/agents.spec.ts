/**
 * The agent picker beside the model in the chat header (docs/DESIGN.md#the-sessions-agent):
 * each agent with its description, the header showing the choice, the next turn's write
 * refused by the plan agent whatever is asked, the change listed in Info; axe clean.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expectNoAxeViolations } from './axe';
import { SUMMARY, expect, newSession, openLoom, send, test, transcript } from './fixtures';

test('picking plan: the header shows it, the next write is refused in the transcript, Info lists the change; axe clean', async ({ page, loom }) => {
  fs.mkdirSync(path.join(loom.projectDir, '.claude', 'agents'), { recursive: true });
  fs.writeFileSync(
    path.join(loom.projectDir, '.claude', 'agents', 'reviewer.md'),
    '---\nname: reviewer\ndescription: Reviews code without changing it\ntools: Read, Grep, Teleport\n---\nYou review.\n',
  );
  loom.model.enqueue(
    { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'plan.txt', content: 'x\n' } }] },
    { text: 'I only plan.' },
    SUMMARY('Planning'),
  );
  await openLoom(page, loom);
  await newSession(page);

  await page.getByRole('button', { name: 'Agent: build' }).click();
  const dialog = page.getByRole('dialog', { name: 'Agent for this session' });
  const choices = dialog.getByRole('group', { name: 'Agent' });
  await expect(choices.getByRole('radio')).toHaveCount(4);
  await expect(choices.getByRole('radio', { name: /^build/ })).toBeChecked();
  await expect(choices.getByText('Read-only: thinks and plans; every write, edit and command is refused.')).toBeVisible();
  await expect(choices.getByRole('radio', { name: /^reviewer/ })).toBeVisible();
  await expect(dialog.getByRole('listitem')).toHaveText([`${path.join('.claude', 'agents', 'reviewer.md')}: tools: no tool named Teleport in Loom; left out`]);
  await expectNoAxeViolations(page, dialog);

  await choices.getByRole('radio', { name: /^plan/ }).check();
  await dialog.getByRole('button', { name: 'Use this agent' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('button', { name: 'Agent: plan' })).toBeVisible();

  await send(page, 'write plan.txt');
  await expect(transcript(page).getByRole('article', { name: 'Assistant' }).last()).toContainText('I only plan.');
  await expect(transcript(page).getByRole('group', { name: 'Result of write_file' }).last()).toContainText('Denied (the plan agent is read-only)');
  expect(fs.existsSync(path.join(loom.projectDir, 'plan.txt'))).toBe(false);

  await page.getByRole('button', { name: 'Info' }).click();
  const info = page.getByRole('dialog', { name: 'Session info' });
  await expect(info.getByRole('table', { name: 'Agent changes' }).getByRole('row').nth(1)).toContainText(/build\s*plan\s*2$/);
  await expectNoAxeViolations(page, info);
});
