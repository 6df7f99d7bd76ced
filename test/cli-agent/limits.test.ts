/**
 * `loom` end to end at its limits: the caps given as flags, every permission rule and hard
 * policy block in one batch, the context hard stop (the session stays resumable) and the
 * audit log outliving `loom --delete`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nth } from '../support/elements';
import { announcedId, inStore, runLoom, useLoomFixture } from './support';

const ctx = useLoomFixture();

const chatBodies = () => ctx.server.requests.map((r) => r.body).filter((b) => b.tools);
const toolResults = (body: any) => Object.fromEntries(body.messages.filter((m: any) => m.role === 'tool').map((m: any) => [m.tool_call_id, m.content]));
const read = (id: string) => ({ id, name: 'read_file', arguments: { path: 'a.txt' } });

function auditEvents(id: string): { event: string; [key: string]: any }[] {
  const file = path.join(ctx.ws.dataDir, 'audit', `${id}.jsonl`);
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

describe('caps given on the command line', () => {
  it('--max-turns, --max-tool-calls and --max-cost-usd each stop a turn cleanly, and say so', async () => {
    fs.writeFileSync(path.join(ctx.ws.projectDir, 'a.txt'), 'a\n');
    ctx.server.enqueue(
      // 1st message: two requests, three tool calls, then --max-turns 2 stops it.
      { toolCalls: [read('a1'), read('a2')] },
      { toolCalls: [read('b1')] },
      // 2nd message: the fourth tool call is over --max-tool-calls 3.
      { toolCalls: [read('c1')] },
      // 3rd message: an answer that costs $1.00 (gpt-4o); the 4th message sends nothing.
      { text: 'That was expensive.', usage: { prompt_tokens: 400_000, completion_tokens: 0 } },
    );
    const args = ['--model', 'gpt-4o', '--max-turns', '2', '--max-tool-calls', '3', '--max-cost-usd', '1'];
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, args, 'first\nsecond\nthird\nfourth\n');
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const stops = run.stdout.split('\n').filter((line) => line.startsWith('Stopped: '));
    expect(stops).toEqual([
      'Stopped: reached --max-turns (2 model requests for one message).',
      'Stopped: reached --max-tool-calls (3 tool calls in this session).',
      expect.stringMatching(/^Stopped: reached --max-cost-usd \(\$1\.00; this session has cost \$1\.0\d{3}\)\.$/),
    ]);
    expect(run.stdout).toContain('[read_file] -> Not run: reached --max-tool-calls (3 tool calls in this session).');
    expect(run.stdout).toContain('Assistant: That was expensive.');
    expect(ctx.server.requests).toHaveLength(4);

    const id = announcedId(run.stdout);
    const context = inStore(ctx.ws, (store) => store.getContext(id));
    expect(context.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(['a1', 'a2', 'b1', 'c1']);
    expect(context.at(-1)).toEqual({ role: 'user', content: '<user_input>\nfourth\n</user_input>' });
    const events = auditEvents(id).map((e) => e.event);
    expect(events.filter((e) => e === 'iteration_cap_hit')).toHaveLength(2);
    expect(events.filter((e) => e === 'cost_limit_hit')).toHaveLength(1);
  });
});

describe('--llm-timeout and --llm-idle-timeout', () => {
  it('gives up on a silent server after that many seconds, in one line that says what to raise', async () => {
    ctx.server.enqueue({ hangMs: 10_000 }, { hangMs: 10_000 });
    const total = await runLoom(ctx.ws, ctx.server.baseUrl, ['--llm-timeout', '1', '-p', 'anyone there?']);
    expect(total.code).toBe(1);
    expect(total.stdout).toBe('');
    expect(total.stderr.split('\n').filter((line) => line.startsWith('loom: '))).toEqual([
      `loom: The model server at ${ctx.server.baseUrl} did not finish its reply within 1 s. Check that it is not overloaded, or raise --llm-timeout.`,
    ]);
    const idle = await runLoom(ctx.ws, ctx.server.baseUrl, ['--llm-idle-timeout', '1', '-p', 'anyone there?']);
    expect(idle.code).toBe(1);
    expect(idle.stderr.split('\n').filter((line) => line.startsWith('loom: '))).toEqual([
      `loom: The model server at ${ctx.server.baseUrl} sent nothing for 1 s. Check that it is running and not overloaded, or raise --llm-idle-timeout.`,
    ]);
  });
});

describe('permission rules and the hard policy, in acceptEdits', () => {
  it('runs, asks or refuses each call as the rules say', async () => {
    fs.writeFileSync(path.join(ctx.ws.projectDir, 'keep.txt'), 'precious\n');
    ctx.server.enqueue(
      {
        toolCalls: [
          { id: 'write_in', name: 'write_file', arguments: { path: 'in.txt', content: 'inside\n' } },
          { id: 'write_out', name: 'write_file', arguments: { path: '../out.txt', content: 'escape' } },
          { id: 'read_etc', name: 'read_file', arguments: { path: '/etc/passwd' } },
          { id: 'sudo', name: 'run_bash', arguments: { command: 'sudo ls' } },
          { id: 'metadata', name: 'webfetch', arguments: { url: 'http://169.254.169.254/latest/meta-data/' } },
          { id: 'force_push', name: 'run_bash', arguments: { command: 'git push --force origin main' } },
          { id: 'chmod', name: 'run_bash', arguments: { command: 'chmod 777 in.txt' } },
          { id: 'empty', name: 'write_file', arguments: { path: 'keep.txt', content: '' } },
          { id: 'echo', name: 'run_bash', arguments: { command: 'echo shell ran > shell.txt' } },
        ],
      },
      { text: 'Done what was allowed.' },
      { text: 'Permissions' },
    );
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--mode', 'acceptEdits'], 'try everything\nn\nn\nn\ny\n');
    expect(run.code).toBe(0);

    // Asked exactly for the always-ask cases and the shell command, in order.
    // The summary's first line; a diff against the file may follow it (emptying keep.txt).
    const asked = [...run.stdout.matchAll(/Permission needed for (\w+) — (.+):\n {2}(.+)\n(?: {2}.*\n)*Allow this action\? \[y\/n\] (\w)/g)];
    expect(asked.map((m) => [m[3], m[4]])).toEqual([
      ['run_bash: git push --force origin main', 'n'],
      ['run_bash: chmod 777 in.txt', 'n'],
      ['write_file keep.txt (0 B)', 'n'],
      ['run_bash: echo shell ran > shell.txt', 'y'],
    ]);
    expect(asked.slice(0, 3).every((m) => nth(m, 2).endsWith('(always asked)'))).toBe(true);

    const results = toolResults(chatBodies()[1]);
    expect(results.write_in).toContain('Created in.txt');
    for (const id of ['write_out', 'read_etc', 'sudo', 'metadata']) expect(results[id]).toMatch(/^Denied by policy \(.+\): this action is never allowed/);
    expect(results.sudo).toContain('shell denylist');
    for (const id of ['force_push', 'chmod', 'empty']) expect(results[id]).toMatch(/^Denied by the user/);
    expect(results.echo).toContain('<tool_result name="run_bash">');

    expect(fs.readFileSync(path.join(ctx.ws.projectDir, 'in.txt'), 'utf8')).toBe('inside\n');
    expect(fs.readFileSync(path.join(ctx.ws.projectDir, 'keep.txt'), 'utf8')).toBe('precious\n');
    expect(fs.readFileSync(path.join(ctx.ws.projectDir, 'shell.txt'), 'utf8')).toBe('shell ran\n');
    expect(fs.existsSync(path.join(ctx.ws.root, 'out.txt'))).toBe(false);
  });
});

describe('the context hard stop', () => {
  it('sends nothing, names the budget in one line, and the session resumes with a larger budget', async () => {
    const long = `Please keep this: ${'word '.repeat(2000)}`;
    const stopped = await runLoom(ctx.ws, ctx.server.baseUrl, ['--max-context-tokens', '1000', '-p', long]);
    expect(stopped.code).toBe(1);
    const errors = stopped.stderr.split('\n').filter((line) => line.startsWith('loom: '));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^loom: The conversation \(\d+ tokens\) does not fit --max-context-tokens 1000 even after compaction; no request was sent\./);
    expect(ctx.server.requests).toHaveLength(0);

    const id = announcedId(stopped.stderr);
    ctx.server.enqueue({ text: 'Kept.' }, { text: 'Keeping words' });
    const resumed = await runLoom(ctx.ws, ctx.server.baseUrl, ['--resume', id, '-p', 'did you keep it?']);
    expect(resumed).toMatchObject({ code: 0, stdout: 'Kept.\n' });
    expect(chatBodies()[0].messages.map((m: any) => m.role)).toEqual(['system', 'user', 'user']);
    expect(chatBodies()[0].messages[1].content).toContain('Please keep this');
  });
});

describe('the audit log', () => {
  it('outlives loom --delete', async () => {
    ctx.server.enqueue({ text: 'Hi.' }, { text: 'Greeting' });
    const id = announcedId((await runLoom(ctx.ws, ctx.server.baseUrl, ['-p', 'hello'])).stderr);
    const before = auditEvents(id).map((e) => e.event);
    expect(before).toEqual(expect.arrayContaining(['session_start', 'config', 'user_message', 'llm_request', 'llm_response', 'session_end']));

    const deleted = await runLoom(ctx.ws, ctx.server.baseUrl, ['--delete', id, '--yes']);
    expect(deleted.code).toBe(0);
    expect(inStore(ctx.ws, (store) => store.list({ includeArchived: true }))).toEqual([]);
    expect(auditEvents(id).map((e) => e.event)).toEqual(before);
  });
});
