/**
 * The retention suite (docs/DESIGN.md#what-compaction-carries): the scripted model writes
 * deliberately lossy summaries (they keep nothing). After ten successive compactions in the
 * real `loom` REPL, every pinned item, every line of AGENTS.md, every plan item with its
 * status and every changed file still reach the next request verbatim, and that request
 * fits the budget.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SUMMARY_SYSTEM_PROMPT } from '../../src/core/context/compactor';
import { estimateTotal } from '../../src/core/model/tokens';
import { nth } from '../support/elements';
import type { ScriptedReply, ScriptedToolCall } from '../support/scripted-server';
import { inStore, runLoom, useLoomFixture } from './support';

const ctx = useLoomFixture();

const AGENTS_MD = ['# House rules', '- Run `npm test` before you say you are done.', '- Tabs, never spaces, in src/.', '- Never commit to main.', ''].join(
  '\n',
);
const PLAN = ['Write the parser', 'Cover the parser with tests', 'Document the grammar'];
const COMPACTIONS = 10;
const BUDGET = 6_000;

type Body = { messages: { role: string; content: string | null }[]; tools?: unknown[] };
const isSummary = (body: Body) => body.messages[0]?.content?.startsWith(SUMMARY_SYSTEM_PROMPT) ?? false;

/** The model: lossy summaries, a title, and for the turns the calls a working agent makes. */
function scriptedModel(): ScriptedReply {
  return {
    respond: (body: Body) => {
      if (isSummary(body)) return { text: 'Nothing worth keeping happened.' };
      if (!body.tools) return { text: 'A title' };
      const last = body.messages.at(-1)!;
      if (last.role === 'tool') return { text: turnAnswer(body) };
      const asked = last.content ?? '';
      if (asked.includes('Start the work')) return { toolCalls: startCalls() };
      const turn = /Turn (\d+)/.exec(asked)?.[1];
      if (turn) return { toolCalls: [write(`src/f${turn}.txt`, `file ${turn}`)] };
      return { text: 'Here is where we stand.' };
    },
  };
}

function turnAnswer(body: Body): string {
  const started = body.messages.some((m) => m.role === 'user' && m.content?.includes('Start the work') && !m.content.includes('session_context_data'));
  return started && !body.messages.some((m) => /Turn \d+/.test(m.content ?? '')) ? 'Decided: the parser is hand-written, no generator.' : 'Done.';
}

const write = (p: string, content: string): ScriptedToolCall => ({ name: 'write_file', arguments: { path: p, content } });

function startCalls(): ScriptedToolCall[] {
  return [
    ...PLAN.map((text) => ({ name: 'todo_append', arguments: { text } })),
    { name: 'todo_update', arguments: { id: 1, status: 'in_progress' } },
    { name: 'todo_update', arguments: { id: 3, status: 'cancelled' } },
    write('src/a.txt', 'a'),
    write('src/b.txt', 'b'),
    { name: 'write_scratchpad', arguments: { content: 'The grammar lives in docs/grammar.md.' } },
  ];
}

describe('ten lossy compactions', () => {
  it('keep every pin, every line of AGENTS.md, the plan and every changed file in front of the model', async () => {
    fs.writeFileSync(path.join(ctx.ws.projectDir, 'AGENTS.md'), AGENTS_MD);
    ctx.server.enqueue(...Array.from({ length: 200 }, scriptedModel));
    const lines = ['Start the work.', '\\pin', '\\pin Never touch vendor/, it is generated.'];
    for (let k = 1; k <= COMPACTIONS; k++) lines.push(`Turn ${k}: one more file.`, '\\compact');
    lines.push('Where do we stand?', '\\pins', '\\exit');

    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--mode', 'acceptEdits', '--max-context-tokens', String(BUDGET)], `${lines.join('\n')}\n`);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.match(/Context compacted\./g)).toHaveLength(COMPACTIONS);
    expect(run.stdout).toContain('Pinned (1): Decided: the parser is hand-written, no generator.');
    expect(run.stdout).toMatch(/2\. note: Never touch vendor\/, it is generated\./);

    const chats = ctx.server.requests.map((r) => r.body as Body).filter((b) => b.tools);
    const last = chats.at(-1)!;
    expect(last.messages.at(-1)!.content).toContain('Where do we stand?');
    const sent = last.messages.map((m) => m.content ?? '').join('\n');
    for (const line of AGENTS_MD.split('\n').filter(Boolean)) expect(nth(last.messages, 0).content).toContain(line);
    expect(nth(last.messages, 0).content).toContain(`AGENTS.md at the project root, ${Buffer.byteLength(AGENTS_MD)} bytes`);
    expect(sent).toContain('Decided: the parser is hand-written, no generator.');
    expect(sent).toContain('Never touch vendor/, it is generated.');
    expect(sent).toContain(`[in_progress] ${PLAN[0]}`);
    expect(sent).toContain(`[pending] ${PLAN[1]}`);
    expect(sent).toContain(`[cancelled] ${PLAN[2]}`);
    expect(sent).toContain('The grammar lives in docs/grammar.md.');
    for (const file of ['src/a.txt', 'src/b.txt', ...Array.from({ length: COMPACTIONS }, (_, k) => `src/f${k + 1}.txt`)]) {
      expect(sent).toMatch(new RegExp(`- ${file.replace('.', '\\.')}: created; now \\d+ bytes`));
    }
    // The summaries kept nothing: all of it came from Loom's own records.
    expect(sent).toContain('Nothing worth keeping happened.');
    expect(estimateTotal(last.messages as never)).toBeLessThanOrEqual(BUDGET);
    // Every request with AGENTS.md, before and after the compactions alike.
    for (const body of chats) expect(nth(body.messages, 0).content).toContain('Never commit to main.');

    const id = inStore(ctx.ws, (store) => nth(store.list(), 0).id);
    inStore(ctx.ws, (store) => expect(store.getCompactions(id)).toHaveLength(COMPACTIONS));
  });

  it('--no-project-instructions leaves AGENTS.md out of every request', async () => {
    fs.writeFileSync(path.join(ctx.ws.projectDir, 'AGENTS.md'), AGENTS_MD);
    ctx.server.enqueue({ text: 'Hello.' }, { text: 'A title' });
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--no-project-instructions', '-p', 'Hi']);
    expect(run.code).toBe(0);
    expect(nth(ctx.server.requests, 0).body.messages[0].content).not.toContain('Never commit to main.');
  });

  it('CLAUDE.md is read when there is no AGENTS.md; a symlink out of the project or a FIFO is not read', async () => {
    fs.writeFileSync(path.join(ctx.ws.projectDir, 'CLAUDE.md'), 'Use pnpm, not npm.\n');
    ctx.server.enqueue({ text: 'Hello.' }, { text: 'A title' });
    expect((await runLoom(ctx.ws, ctx.server.baseUrl, ['-p', 'Hi'])).code).toBe(0);
    expect(nth(ctx.server.requests, 0).body.messages[0].content).toContain('CLAUDE.md at the project root, 19 bytes');
    expect(nth(ctx.server.requests, 0).body.messages[0].content).toContain('Use pnpm, not npm.');

    const outside = path.join(ctx.ws.root, 'secret.md');
    fs.writeFileSync(outside, 'TOP SECRET OUTSIDE THE PROJECT');
    fs.symlinkSync(outside, path.join(ctx.ws.projectDir, 'AGENTS.md'));
    ctx.server.enqueue({ text: 'Hello.' }, { text: 'A title' });
    expect((await runLoom(ctx.ws, ctx.server.baseUrl, ['-p', 'Hi again'])).code).toBe(0);
    const lastPrompt = () => ctx.server.requests.filter((r) => r.body.tools).at(-1)!.body.messages[0].content as string;
    expect(lastPrompt()).not.toContain('TOP SECRET');
    expect(lastPrompt()).toContain('Use pnpm, not npm.');

    fs.unlinkSync(path.join(ctx.ws.projectDir, 'AGENTS.md'));
    execFileSync('mkfifo', [path.join(ctx.ws.projectDir, 'AGENTS.md')]);
    ctx.server.enqueue({ text: 'Hello.' }, { text: 'A title' });
    expect((await runLoom(ctx.ws, ctx.server.baseUrl, ['-p', 'And again'])).code).toBe(0);
    expect(lastPrompt()).toContain('Use pnpm, not npm.');
  });

  it('a long AGENTS.md is cut at 32 KiB, and the prompt says so', async () => {
    fs.writeFileSync(path.join(ctx.ws.projectDir, 'AGENTS.md'), `FIRST LINE\n${'x'.repeat(40_000)}\nLAST LINE\n`);
    ctx.server.enqueue({ text: 'Hello.' }, { text: 'A title' });
    expect((await runLoom(ctx.ws, ctx.server.baseUrl, ['-p', 'Hi'])).code).toBe(0);
    const prompt = nth(ctx.server.requests, 0).body.messages[0].content as string;
    expect(prompt).toContain('FIRST LINE');
    expect(prompt).not.toContain('LAST LINE');
    expect(prompt).toContain('[Cut at 32,768 of 40,022 bytes');
  });
});
