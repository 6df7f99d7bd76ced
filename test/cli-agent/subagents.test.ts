/**
 * Sub-agents on the command line (docs/DESIGN.md#sub-agents): the progress lines a chat
 * prints, children left out of --list-sessions unless asked, --info's children and usage,
 * the delete that names them, and kill -9 while a child runs.
 */
import { describe, expect, it } from 'vitest';
import { INTERRUPTED_RESULT } from '../../src/core/agent/recovery';
import { announcedId, inStore, runLoom, startLoom, useLoomFixture } from './support';

const ctx = useLoomFixture();

const SUMMARY = { text: 'Test session' };
const subagent = (id: string, task: string) => ({ id, name: 'run_subagent', arguments: { agent: 'explore', task } });

describe('loom with sub-agents', () => {
  it('prints one line per sub-agent as it starts and ends, and lists, describes and deletes the children with their parent', async () => {
    // One at a time (--max-parallel-subagents 1), so the scripted replies come in this order.
    ctx.server.enqueue(
      { toolCalls: [subagent('s1', 'find the parser'), subagent('s2', 'find the tests')], usage: { prompt_tokens: 100, completion_tokens: 10 } },
      { text: 'The parser is in src/parse.ts.', usage: { prompt_tokens: 7, completion_tokens: 3 } },
      { text: 'The tests are in test/.', usage: { prompt_tokens: 5, completion_tokens: 2 } },
      { text: 'Both found.' },
      SUMMARY,
    );
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['-p', 'look around', '--max-parallel-subagents', '1']);
    expect(run.code).toBe(0);
    // Only the parent's answer on stdout: the children's work stays in their sessions.
    expect(run.stdout).toBe('Both found.\n');
    const lines = run.stderr.split('\n').filter((line) => line.startsWith('[sub-agent'));
    expect(lines).toEqual([
      '[sub-agent explore] started: find the parser',
      '[sub-agent explore] done: find the parser',
      '[sub-agent explore] started: find the tests',
      '[sub-agent explore] done: find the tests',
    ]);
    const id = announcedId(run.stderr);
    const children = inStore(ctx.ws, (store) => store.children(id).map((c) => c.id));
    expect(children).toHaveLength(2);

    const listed = await runLoom(ctx.ws, ctx.server.baseUrl, ['--list-sessions', '--json']);
    expect(JSON.parse(listed.stdout).map((s: { id: string }) => s.id)).toEqual([id]);
    const all = await runLoom(ctx.ws, ctx.server.baseUrl, ['--list-sessions', '--include-children', '--json']);
    expect(
      JSON.parse(all.stdout)
        .map((s: { id: string }) => s.id)
        .sort(),
    ).toEqual([id, ...children].sort());

    const info = JSON.parse((await runLoom(ctx.ws, ctx.server.baseUrl, ['--info', id, '--json'])).stdout);
    expect(info.children.map((c: { id: string; agent: string; state: string }) => [c.id, c.agent, c.state])).toEqual(
      children.map((c) => [c, 'explore', 'done']),
    );
    expect(info.children_usage).toMatchObject({ calls: 2, prompt_tokens: 12, completion_tokens: 5 });
    expect(info.total_usage.prompt_tokens).toBe(info.usage.prompt_tokens + 12);
    const text = (await runLoom(ctx.ws, ctx.server.baseUrl, ['--info', id])).stdout;
    expect(text).toContain('Sub-agents:');
    expect(text).toContain("Sub-agents' usage:");
    expect(text).toContain('Total with sub-agents:');

    const refused = await runLoom(ctx.ws, ctx.server.baseUrl, ['--delete', id]);
    expect(refused.stderr).toContain(`and its 2 sub-agent sessions (${children.join(', ')})`);
    expect((await runLoom(ctx.ws, ctx.server.baseUrl, ['--delete', id, '--yes'])).code).toBe(0);
    const left = await runLoom(ctx.ws, ctx.server.baseUrl, ['--list-sessions', '--include-children', '--json']);
    expect(JSON.parse(left.stdout)).toEqual([]);
  });

  it('kill -9 mid-child: on resume the call is answered "interrupted" unasked, the child kept and marked interrupted', async () => {
    ctx.server.enqueue({ toolCalls: [subagent('k1', 'dig deep')] }, { hangMs: 60_000 });
    const loom = startLoom(ctx.ws, ctx.server.baseUrl, []);
    loom.write('start digging\n');
    await loom.waitFor(/\[sub-agent explore\] started: dig deep/);
    await ctx.server.waitForRequests(2);
    loom.child.kill('SIGKILL');
    await loom.exited;
    const id = announcedId(loom.stdout());
    const [child] = inStore(ctx.ws, (store) => store.children(id));
    expect(child?.child.state).toBe('running');

    ctx.server.enqueue({ text: 'The dig was interrupted.' }, SUMMARY);
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--resume', id], 'what happened?\n');
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('Allow this action?');
    expect(run.stdout).toContain(`Interrupted sub-agent from the last run`);
    const saved = inStore(ctx.ws, (store) => ({ context: store.getContext(id), link: store.childLink(child!.id), own: store.getTranscript(child!.id) }));
    expect(saved.context.find((m) => m.role === 'tool')?.content).toContain(INTERRUPTED_RESULT);
    expect(saved.link?.state).toBe('interrupted');
    expect(saved.own.map((m) => m.role)).toEqual(['system', 'user']);

    // The child resumes on its own, like any session.
    ctx.server.enqueue({ text: 'Dug.' });
    const resumed = await runLoom(ctx.ws, ctx.server.baseUrl, ['--resume', child!.id, '-p', 'go on']);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('Dug.\n');
  });
});
