/**
 * `loom` sessions end to end: -p, --resume, --continue, the REPL commands, recovery after
 * kill -9 during a tool call, a server that is down, a session held by another process,
 * and Ctrl-C during a reply.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTERRUPTED_RESULT } from '../../src/core/agent/recovery';
import { nth, take } from '../support/elements';
import { PNG_URL } from '../support/images';
import { startScriptedServer } from '../support/scripted-server';
import { announcedId, inStore, runLoom, startLoom, useLoomFixture } from './support';

const ctx = useLoomFixture();

const SUMMARY = { text: 'Test session' };
const chatBodies = () => ctx.server.requests.map((r) => r.body).filter((b) => b.tools);

describe('loom -p', () => {
  it('prints only the answer on stdout and saves the session', async () => {
    ctx.server.enqueue({ text: 'Hello there.' }, SUMMARY);
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['-p', 'Say hello']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Hello there.\n');
    const id = announcedId(run.stderr);
    // Status goes to stderr, without the REPL's hint (-p takes no commands).
    expect(run.stderr).toBe(`Session ${id} started in ${ctx.ws.projectDir}.\nSession ${id} saved. Resume it with: loom --resume ${id}\n`);
    const meta = inStore(ctx.ws, (store) => store.getMeta(id));
    expect(meta).toMatchObject({ status: 'saved', message_count: 3, summary: 'Test session' });
  });

  it('denies an approval when there is no terminal to ask', async () => {
    ctx.server.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'A' } }] }, { text: 'Not written.' }, SUMMARY);
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['-p', 'write a']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('Denied: there is no terminal to ask');
    expect(chatBodies()[1].messages.at(-1).content).toMatch(/^Denied by the user/);
  });

  it('runs a known-safe command without asking, where a look-alike is still asked (and denied)', async () => {
    fs.writeFileSync(path.join(ctx.ws.projectDir, 'notes.txt'), 'one\ntwo\n');
    ctx.server.enqueue(
      { toolCalls: [{ id: 'safe', name: 'run_bash', arguments: { command: 'wc -l notes.txt' } }] },
      { toolCalls: [{ id: 'alike', name: 'run_bash', arguments: { command: 'wc -l notes.txt > count.txt' } }] },
      { text: 'Counted.' },
      SUMMARY,
    );
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['-p', 'count the lines']);
    expect(run.code).toBe(0);
    expect(run.stdout + run.stderr).not.toContain('Allow this action?');
    expect(chatBodies()[1].messages.at(-1)).toMatchObject({ tool_call_id: 'safe', content: expect.stringContaining('2 notes.txt') });
    expect(chatBodies()[2].messages.at(-1)).toMatchObject({ tool_call_id: 'alike', content: expect.stringMatching(/^Denied by the user/) });
    expect(run.stderr.match(/Denied: there is no terminal to ask/g)).toHaveLength(1);
    expect(fs.existsSync(path.join(ctx.ws.projectDir, 'count.txt'))).toBe(false);
  });
});

describe('--resume and --continue', () => {
  it('--resume (by prefix) continues the saved context', async () => {
    ctx.server.enqueue({ text: 'First answer.' }, SUMMARY);
    const first = await runLoom(ctx.ws, ctx.server.baseUrl, ['-p', 'first question']);
    const id = announcedId(first.stderr);

    ctx.server.enqueue({ text: 'Second answer.' });
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--resume', id.slice(0, 8)], 'second question\n');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Session ${id} (Test session): 2 messages so far, model gemma4, in ${ctx.ws.projectDir}.`);
    expect(run.stdout).toContain('Assistant: Second answer.');
    const sent = chatBodies()[1].messages;
    expect(sent.map((m: any) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(sent[2].content).toBe('First answer.');
  });

  it("--model with --resume makes that the session's model from now on, recorded; a later resume keeps it", async () => {
    ctx.server.enqueue({ text: 'First answer.' }, SUMMARY);
    const id = announcedId((await runLoom(ctx.ws, ctx.server.baseUrl, ['-p', 'first question'])).stderr);

    ctx.server.enqueue({ text: 'Second answer.' });
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--resume', id, '--model', 'scripted-model'], 'second question\n');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Session ${id} (Test session): 2 messages so far, model changed from gemma4 to scripted-model, in ${ctx.ws.projectDir}.`);
    expect(chatBodies().map((b) => b.model)).toEqual(['gemma4', 'scripted-model']);
    const recorded = inStore(ctx.ws, (store) => ({ model: store.getMeta(id).model, changes: store.getModelChanges(id) }));
    expect(recorded.model).toBe('scripted-model');
    expect(recorded.changes).toEqual([{ at: expect.any(String), from: 'gemma4', to: 'scripted-model', transcript_index: 3 }]);

    // Without --model the session keeps its own model, whatever the default is.
    ctx.server.enqueue({ text: 'Third answer.' });
    await runLoom(ctx.ws, ctx.server.baseUrl, ['--resume', id], 'third question\n');
    expect(chatBodies().at(-1).model).toBe('scripted-model');
  });

  it('--resume of a session with an image sends the image again; --export keeps it', async () => {
    const image = { type: 'image_url', image_url: { url: PNG_URL } } as const;
    const id = inStore(ctx.ws, (store) =>
      store.create({
        title: 'A picture',
        messages: [
          { role: 'system', content: 'You are Loom.' },
          { role: 'user', content: [{ type: 'text', text: '<user_input>\nWhat is this?\n</user_input>' }, image] },
          { role: 'assistant', content: 'A red dot.' },
        ],
      }),
    ).id;
    ctx.server.enqueue({ text: 'Still a red dot.' }, SUMMARY);
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--resume', id], 'and now?\n');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Assistant: Still a red dot.');
    expect(chatBodies()[0].messages[1].content).toEqual([{ type: 'text', text: '<user_input>\nWhat is this?\n</user_input>' }, image]);

    const exported = await runLoom(ctx.ws, ctx.server.baseUrl, ['--export', id]);
    expect(JSON.parse(exported.stdout).session.transcript[1].content[1]).toEqual(image);
  });

  it('--continue picks the most recently updated session', async () => {
    ctx.server.enqueue({ text: 'A.' }, SUMMARY, { text: 'B.' }, SUMMARY);
    await runLoom(ctx.ws, ctx.server.baseUrl, ['-p', 'session one']);
    const second = announcedId((await runLoom(ctx.ws, ctx.server.baseUrl, ['-p', 'session two'])).stderr);

    ctx.server.enqueue({ text: 'Continuing.' });
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--continue'], 'more\n');
    expect(announcedId(run.stdout)).toBe(second);
    expect(chatBodies().at(-1).messages[1].content).toContain('session two');
  });

  it('--continue with no session says so', async () => {
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--continue']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('loom: There is no session to continue; start one with `loom`.\n');
  });

  it('refuses an archived session and says how to unarchive it', async () => {
    ctx.server.enqueue({ text: 'A.' }, SUMMARY);
    const id = announcedId((await runLoom(ctx.ws, ctx.server.baseUrl, ['-p', 'hi'])).stderr);
    inStore(ctx.ws, (store) => store.setArchived(id, true));
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--resume', id]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`loom: Session ${id} is archived; unarchive it with \`loom --unarchive ${id}\` to resume.\n`);
  });
});

describe('REPL commands', () => {
  it('\\compact, \\title, \\info, \\fork and \\fork N', async () => {
    const long = `The codeword is zebrafish. ${'x'.repeat(3000)}`;
    ctx.server.enqueue({ text: 'One.' }, SUMMARY, { text: 'Two.' }, { text: 'Earlier the user sent a long line of x.' });
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, [], `${long}\nsecond\n\\compact\n\\title My work\n\\info\n\\fork\n\\fork 2\n\\fork two\n\\exit\n`);
    expect(run.code).toBe(0);
    const id = announcedId(run.stdout);
    const compacted = run.stdout.match(/Context compacted\. \((\d+) -> (\d+) tokens\)/);
    expect(compacted).not.toBeNull();
    expect(Number(compacted![2])).toBeLessThan(Number(compacted![1]));
    expect(run.stdout).toContain('Title set: My work');
    expect(run.stdout).toMatch(/Title:\s+My work/);
    expect(run.stdout).toMatch(/Compactions:\s+1/);
    const [forkId, earlyId] = take([...run.stdout.matchAll(/Forked as ([0-9a-f-]{36})\. You are still in session ([0-9a-f-]{36})/g)], 2);
    expect(forkId[2]).toBe(id);
    expect(earlyId[2]).toBe(id);
    expect(run.stdout).toContain('Usage: \\fork [N]');
    expect(run.stdout.trimEnd().endsWith(`Session ${id} saved. Resume it with: loom --resume ${id}`)).toBe(true);

    const saved = inStore(ctx.ws, (store) => ({
      fork: store.getMeta(nth(forkId, 1)),
      forkContext: store.getContext(nth(forkId, 1)),
      forkCompactions: store.getCompactions(nth(forkId, 1)),
      context: store.getContext(id),
      compactions: store.getCompactions(id),
      early: store.get(nth(earlyId, 1)),
      transcript: store.getTranscript(id),
    }));
    // \fork 2: the system message and the first user message, before the compaction.
    expect(saved.early.transcript).toEqual(saved.transcript.slice(0, 2));
    expect(saved.early.messages).toEqual(saved.early.transcript);
    expect(saved.early.compactions).toEqual([]);
    expect(saved.fork.parent_id).toBe(id);
    // Named for what it is (docs/DESIGN.md#branch-titles): the whole session, forked.
    expect(saved.fork.title).toBe(`My work · fork at ${saved.fork.message_count}`);
    // The fork inherits the compacted context and the compaction history.
    expect((nth(saved.context, 1).content as string).startsWith('<session_context_data>\nEarlier conversation summary')).toBe(true);
    expect(saved.forkContext).toEqual(saved.context);
    expect(saved.forkCompactions).toEqual(saved.compactions);
    expect(saved.compactions).toEqual([
      expect.objectContaining({
        before_tokens: Number(compacted![1]),
        after_tokens: Number(compacted![2]),
        summary: 'Earlier the user sent a long line of x.',
      }),
    ]);

    // The compacted turn is gone from the context but kept in the export and found by --search.
    const exported = JSON.parse((await runLoom(ctx.ws, ctx.server.baseUrl, ['--export', id])).stdout).session;
    expect(exported.messages.some((m: any) => m.content?.includes('zebrafish'))).toBe(false);
    expect(exported.transcript.some((m: any) => m.content?.includes('zebrafish'))).toBe(true);
    expect(exported.compactions).toEqual(saved.compactions);
    const hits = JSON.parse((await runLoom(ctx.ws, ctx.server.baseUrl, ['--search', 'zebrafish', '--json'])).stdout);
    // Shared with both forks, so a hit in each of them, the older session first on a tie (docs/DESIGN.md#search).
    expect(hits.map((hit: any) => hit.id)).toEqual([id, forkId[1], earlyId[1]]);
  });

  it('\\compact with nothing old enough says so and changes nothing', async () => {
    ctx.server.enqueue({ text: 'One.' }, SUMMARY);
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, [], 'only\n\\compact\n');
    expect(run.stdout).toContain('Nothing to compact');
    expect(run.stderr).toBe('');
    expect(ctx.server.requests).toHaveLength(2);
  });
});

describe('recovery after kill -9 during a tool call', () => {
  it('shows the dangling call on --resume, closes it, and the next request is valid', async () => {
    ctx.server.enqueue({ toolCalls: [{ id: 'nap', name: 'run_bash', arguments: { command: 'sleep 30' } }] });
    const loom = startLoom(ctx.ws, ctx.server.baseUrl, ['--mode', 'dangerouslySkipPermissions']);
    loom.write('take a nap\n');
    await loom.waitFor(/\[run_bash\] \{"command":"sleep 30"\}/);
    loom.child.kill('SIGKILL');
    await loom.exited;
    const id = announcedId(loom.stdout());
    expect(inStore(ctx.ws, (store) => store.getContext(id).at(-1))).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'nap' }] });

    ctx.server.enqueue({ text: 'The nap was interrupted.' }, SUMMARY);
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--resume', id, '--mode', 'dangerouslySkipPermissions'], 'n\nwhat happened?\n');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Interrupted tool call from the last run: run_bash {"command":"sleep 30"}');
    expect(run.stdout).toContain('Allow this action? [y/n] n\n');
    const sent = chatBodies().at(-1).messages;
    expect(sent.slice(-3)).toEqual([
      { role: 'assistant', content: null, tool_calls: [expect.objectContaining({ id: 'nap' })] },
      { role: 'tool', tool_call_id: 'nap', content: INTERRUPTED_RESULT },
      { role: 'user', content: '<user_input>\nwhat happened?\n</user_input>' },
    ]);
    expect(inStore(ctx.ws, (store) => store.getMeta(id).status)).toBe('saved');
  });
});

describe('failures the user must understand', () => {
  it('a server that is down: one clear line, a non-zero exit, the message saved', async () => {
    const dead = await startScriptedServer();
    const deadUrl = dead.baseUrl;
    await dead.close();
    // Retried three times (quickly here), each retry announced once, then one error line.
    const run = await runLoom(ctx.ws, deadUrl, [], 'hello?\n', { LOOM_RETRY_BASE_MS: '1' });
    expect(run.code).not.toBe(0);
    const lines = run.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(`loom: Cannot reach the model server at ${deadUrl} (connection refused). Start it (e.g. \`ollama serve\`) or pass --base-url.`);
    const retries = run.stdout.split('\n').filter((line) => line.includes('Retrying'));
    expect(retries).toEqual([1, 2, 3].map((n) => `Cannot reach the model server at ${deadUrl} (connection refused). Retrying in 1 s (retry ${n} of 3).`));
    const id = announcedId(run.stdout);
    const saved = inStore(ctx.ws, (store) => ({ meta: store.getMeta(id), context: store.getContext(id) }));
    expect(saved.context.at(-1)).toEqual({ role: 'user', content: '<user_input>\nhello?\n</user_input>' });
    expect(saved.meta.status).toBe('saved');
  });

  it('a second process on the same session is refused while a turn of the first runs, and resumes it between turns', async () => {
    ctx.server.enqueue({ text: 'This reply stalls for a while', stallAfterChunks: 3, hangMs: 30_000 });
    const first = startLoom(ctx.ws, ctx.server.baseUrl, []);
    const id = nth(await first.waitFor(/Session ([0-9a-f-]{36}) started/), 1);
    await first.waitFor(/You: /);
    first.write('talk\n');
    await first.waitFor(/Assistant: This/);
    const second = await runLoom(ctx.ws, ctx.server.baseUrl, ['--resume', id]);
    expect(second.code).toBe(1);
    expect(second.stderr).toBe(
      `loom: Session ${id} is in use by pid ${first.child.pid}. Wait until that loom ends, or work on a copy: \`loom --fork ${id}\`, then resume the copy.\n`,
    );
    first.child.kill('SIGINT');
    await first.waitFor(/Stopped: the turn was stopped by the user\.[\s\S]*You: $/);
    // Between the first one's turns the session is free: a second `loom` resumes it.
    expect(await runLoom(ctx.ws, ctx.server.baseUrl, ['--resume', id])).toMatchObject({ code: 0 });
    first.end();
    expect((await first.exited).code).toBe(0);
  });

  it('Ctrl-C during a reply stops the reply, not the program', async () => {
    ctx.server.enqueue({ text: 'This reply stalls forever', stallAfterChunks: 3, hangMs: 30_000 });
    const loom = startLoom(ctx.ws, ctx.server.baseUrl, []);
    loom.write('talk\n');
    await loom.waitFor(/Assistant: This/);
    loom.child.kill('SIGINT');
    await loom.waitFor(/Stopped: the turn was stopped by the user\./);
    // At the prompt, a first Ctrl-C says how to quit and a second one quits, saving the session.
    await loom.waitFor(/You: $/);
    loom.child.kill('SIGINT');
    await loom.waitFor(/Press Ctrl-C again/);
    loom.child.kill('SIGINT');
    const { code } = await loom.exited;
    expect(code).toBe(0);
    const id = announcedId(loom.stdout());
    expect(loom.stdout()).toContain(`Session ${id} saved.`);
  });
});
