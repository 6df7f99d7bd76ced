/**
 * Sub-agents in the window (docs/DESIGN.md#sub-agents): each run_subagent call's card in
 * the parent's transcript with its live status, the child opened in a tab beside its
 * parent (read-only while it runs), the children under their parent in the sidebar, a
 * child's approval or question in the parent's tab, named by the child's agent and task and
 * answered for that child only, a call that started no child, and an import's note on
 * children it could not link.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import type { ChatMessage } from '../../src/shared/types';
import type { ScriptedReply, ScriptedServer } from '../support/scripted-server';
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

type Body = { messages: ChatMessage[] };
type Script = ScriptedReply | ((body: Body) => ScriptedReply);

/** Which conversation a request is: its first user message, unfenced (the parent's, or a child's task). */
function conversationOf(body: Body): string {
  const first = body.messages.find((m) => m.role === 'user');
  return (typeof first?.content === 'string' ? first.content : '').replace(/<\/?user_input>/g, '').trim();
}

/** Each conversation's n-th request gets its n-th reply, whichever order parallel children ask in; a listing summary gets `summary`. */
function route(model: ScriptedServer, summary: string, scripts: Record<string, Script[]>): void {
  const total = Object.values(scripts).reduce((n, replies) => n + replies.length, 0) + 1;
  const respond = (body: Body): ScriptedReply => {
    const replies = scripts[conversationOf(body)];
    if (!replies) return SUMMARY(summary);
    const reply = replies[body.messages.filter((m) => m.role === 'assistant').length];
    if (!reply) return { status: 500, error: `unscripted request for "${conversationOf(body)}"` };
    return typeof reply === 'function' ? reply(body) : reply;
  };
  model.enqueue(...Array.from({ length: total }, () => ({ respond })));
}

/** A child's reply repeating the result of its call: what it was told is its answer to the parent. */
const tellWhatHappened: Script = (body) => {
  const content = body.messages.findLast((m) => m.role === 'tool')?.content ?? '';
  return { text: `Told: ${content.replace(/<\/?tool_result[^>]*>/g, '').trim()}` };
};

const writeCall = (id: string, file: string) => ({ toolCalls: [{ id, name: 'write_file', arguments: { path: file, content: `${file}\n` } }] });

function resultCard(page: Page, n: number) {
  return transcript(page).getByRole('group', { name: 'Result of run_subagent' }).nth(n);
}

test('two children waiting at once: each card waits, each approval names its child, and each answer is that child’s', async ({ page, loom }) => {
  route(loom.model, 'Two notes', {
    'Write two notes': [{ toolCalls: [subagent('b1', 'build', 'write note A'), subagent('b2', 'build', 'write note B')] }, { text: 'Both answered.' }],
    'write note A': [writeCall('wa', 'a.txt'), tellWhatHappened],
    'write note B': [writeCall('wb', 'b.txt'), tellWhatHappened],
  });
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Write two notes');

  const approvalA = page.getByRole('group', { name: 'Approval needed: write_file, from the build sub-agent, "write note A"' });
  const approvalB = page.getByRole('group', { name: 'Approval needed: write_file, from the build sub-agent, "write note B"' });
  await expect(approvalA).toContainText('a.txt');
  await expect(approvalB).toContainText('b.txt');
  await expect(card(page, 0).getByRole('status')).toHaveText('waiting for approval');
  await expect(card(page, 1).getByRole('status')).toHaveText('waiting for approval');
  await expectNoAxeViolations(page);

  await approvalB.getByRole('button', { name: 'Deny' }).click();
  await expect(card(page, 1).getByRole('status')).toHaveText('done');
  // The other child still waits on its own request.
  await expect(card(page, 0).getByRole('status')).toHaveText('waiting for approval');
  await approvalA.getByRole('button', { name: 'Allow once' }).click();
  await expect(card(page, 0).getByRole('status')).toHaveText('done');
  await expect(transcript(page).getByText('Both answered.')).toBeVisible();

  expect(fs.readFileSync(path.join(loom.projectDir, 'a.txt'), 'utf8')).toBe('a.txt\n');
  expect(fs.existsSync(path.join(loom.projectDir, 'b.txt'))).toBe(false);
  await expect(resultCard(page, 0)).not.toContainText('Denied');
  await expect(resultCard(page, 0)).toContainText('Told: ');
  await expect(resultCard(page, 1)).toContainText('Told: Denied by the user');
});

test("a child's question waits on its card and is answered from the parent's tab, for that child", async ({ page, loom }) => {
  route(loom.model, 'Colours', {
    'Pick a colour': [{ toolCalls: [subagent('q1', 'build', 'ask which colour')] }, { text: 'Asked.' }],
    'ask which colour': [{ toolCalls: [{ id: 'aq', name: 'ask_question', arguments: { question: 'Which colour?' } }] }, tellWhatHappened],
  });
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Pick a colour');

  const question = page.getByRole('group', { name: 'Question, from the build sub-agent, "ask which colour"' });
  await expect(question).toContainText('Which colour?');
  await expect(card(page, 0).getByRole('status')).toHaveText('waiting for your answer');
  await expectNoAxeViolations(page);

  await question.getByRole('textbox', { name: 'Your answer' }).fill('teal');
  await question.getByRole('button', { name: 'Answer' }).click();
  await expect(card(page, 0).getByRole('status')).toHaveText('done');
  await expect(resultCard(page, 0)).toContainText('Told: The user answered: teal');
});

test('a call a stop cut before it started says it was refused, and why', async ({ page, loom }) => {
  loom.model.enqueue(
    { toolCalls: [{ id: 'w0', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } }, subagent('s1', 'explore', 'look later')] },
    SUMMARY('Stopped'),
  );
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Write, then look');

  await expect(page.getByRole('group', { name: 'Approval needed: write_file' })).toBeVisible();
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(card(page, 0).getByRole('status')).toHaveText('refused');
  await expect(card(page, 0)).toContainText('Not run: the turn was stopped by the user.');
  await expectNoAxeViolations(page);
  expect(loom.store.children(loom.store.list()[0]!.id)).toEqual([]);
});

test('a call that started no child says it failed, and why', async ({ page, loom }) => {
  loom.model.enqueue({ toolCalls: [subagent('s1', 'scout', 'scout around')] }, { text: 'No scout here.' }, SUMMARY('Scouting'));
  await openLoom(page, loom);
  await newSession(page);
  await send(page, 'Scout around');

  await expect(transcript(page).getByText('No scout here.')).toBeVisible();
  await expect(card(page, 0).getByRole('status')).toHaveText('failed');
  await expect(card(page, 0)).toContainText('Error: There is no agent named "scout". Agents: ');
  await expectNoAxeViolations(page);
  // After a reload the card reads the same from the transcript.
  await page.reload();
  await expect(card(page, 0).getByRole('status')).toHaveText('failed');
});

test('an import whose sub-agent session names no call of its transcript says so, as `loom --import` does', async ({ page, loom }) => {
  const { store } = loom;
  const parent = store.create({ title: 'Family', messages: [{ role: 'user', content: 'look around' }] });
  const call = { id: 'call_a', type: 'function' as const, function: { name: 'run_subagent', arguments: JSON.stringify({ agent: 'explore', task: 'a' }) } };
  store.appendMessage(parent.id, { role: 'assistant', content: null, tool_calls: [call] });
  for (const callId of ['call_a', 'call_elsewhere']) store.create({ title: `explore: ${callId}`, spawn: { parentId: parent.id, callId, agent: 'explore' } });
  store.appendMessage(parent.id, { role: 'tool', tool_call_id: 'call_a', content: 'found' });
  const text = await store.exportSession(parent.id);
  await openLoom(page, loom);

  await page.getByLabel('Session export file to import').setInputFiles({ name: 'family.loom', mimeType: 'application/json', buffer: Buffer.from(text) });
  const note = page.getByRole('status').filter({ hasText: 'imported unlinked' });
  await expect(note.getByText(/^family/)).toHaveText(
    /^family\.loom: Imported session [0-9a-f-]+: 1 sub-agent session named no run_subagent call of its transcript; imported unlinked \([0-9a-f-]+\)\.$/,
  );
  await expectNoAxeViolations(page);
});
