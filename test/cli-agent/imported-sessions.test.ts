/**
 * Sessions imported from another agent, used as Loom sessions: resumed (the request a
 * strict server gets next), and reached by the model's search_sessions and read_session.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAUDE_SESSION, claudeBranch, claudeMain, jsonl, writeFile } from '../import/fixtures';
import { strictChatViolations } from '../support/strict-chat-rules';
import { inStore, runLoom, useLoomFixture } from './support';

const ctx = useLoomFixture();
const chatBodies = () => ctx.server.requests.map((r) => r.body).filter((b) => b.tools);

/** Imports the Claude Code fixture; the id of its main line. */
async function importClaudeSession(): Promise<string> {
  const file = writeFile(path.join(ctx.ws.root, 'claude', `${CLAUDE_SESSION}.jsonl`), jsonl([...claudeMain(), ...claudeBranch()]));
  const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--import-from', 'claude-code', file]);
  expect(run.code).toBe(0);
  return inStore(ctx.ws, (store) => store.list().find((s) => s.parent_id === null && s.title === 'Lexer zebra fix')?.id ?? '');
}

describe('imported sessions', () => {
  it("--resume does not send Claude Code's model to the server: one line says to choose one, and nothing is sent", async () => {
    const id = await importClaudeSession();
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--resume', id.slice(0, 8), '-p', 'And the docs?']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      `Claude Code recorded session ${id} with the model claude-sonnet-4-5, which Loom does not send to your server without asking: resume it with --model NAME (your default is gemma4).`,
    );
    expect(ctx.server.requests).toHaveLength(0);
    expect(inStore(ctx.ws, (store) => store.getModelChanges(id))).toEqual([]);
  });

  it('--resume --model sends the compacted context of the imported session, which a strict server accepts, in the folder Loom runs in', async () => {
    const id = await importClaudeSession();
    ctx.server.enqueue({ text: 'Resumed.' });
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--resume', id.slice(0, 8), '--model', 'gemma4'], 'And the docs?\n');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Assistant: Resumed.');
    const sent = chatBodies()[0];
    expect(strictChatViolations(sent)).toEqual([]);
    expect(sent.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user', 'user', 'assistant', 'user']);
    expect(sent.messages[0].content).toContain(ctx.ws.projectDir);
    expect(sent.messages[0].content).not.toContain('/home/ada/lexer');
    expect(sent.messages[1].content).toContain('Summary: the lexer skipped quoted zebra tokens');
    expect(sent.messages[3].content).toBe('Added test/lexer.test.ts.');
    expect(sent.model).toBe('gemma4');
  });

  it("the model's search_sessions and read_session reach it", async () => {
    const id = await importClaudeSession();
    ctx.server.enqueue(
      { toolCalls: [{ name: 'search_sessions', arguments: { query: 'zebra' } }] },
      { toolCalls: [{ name: 'read_session', arguments: { id } }] },
      { text: 'Found it.' },
      { text: 'Zebra lookup' },
    );
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['-p', 'What did we do about zebras?']);
    expect(run.code).toBe(0);
    const [, afterSearch, afterRead] = chatBodies();
    expect(afterSearch.messages.at(-1).content).toContain(`${id}  Lexer zebra fix`);
    expect(afterRead.messages.at(-1).content).toContain('Fixed: quoted zebra tokens are no longer skipped.');
    expect(afterRead.messages.at(-1).content).toContain('Fix the zebra token bug in lexer.ts');
  });
});
