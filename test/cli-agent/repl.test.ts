/**
 * `loom` as a chat, spawned for real with piped stdin: what it prints, what the store
 * holds and what the scripted server received.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { announcedId, inStore, runLoom, useLoomFixture } from './support';

const ctx = useLoomFixture();

const SUMMARY = { text: 'Test session' };
const bodies = () => ctx.server.requests.map((r) => r.body);
const toolMessages = (body: any) => body.messages.filter((m: any) => m.role === 'tool');
/** The question for a write, which offers to allow every write_file call for the session. */
const WRITE_PROMPT = 'Allow this action? [y/n/a] (a: allow every write_file call for the rest of this session) ';

describe('the REPL', () => {
  it('runs a tool round-trip and saves every message', async () => {
    ctx.server.enqueue(
      { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'out.txt', content: 'hi\n' } }] },
      { text: 'I wrote out.txt.' },
      SUMMARY,
    );
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--mode', 'acceptEdits'], 'write hi to out.txt\n');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('You: write hi to out.txt\n');
    expect(run.stdout).toContain('[write_file] {"path":"out.txt","content":"hi\\n"}');
    expect(run.stdout).toContain('Assistant: I wrote out.txt.\n');
    const id = announcedId(run.stdout);
    expect(run.stdout).toContain(`Session ${id} saved. Resume it with: loom --resume ${id}`);
    expect(fs.readFileSync(path.join(ctx.ws.projectDir, 'out.txt'), 'utf8')).toBe('hi\n');

    expect(toolMessages(bodies()[1])).toEqual([{ role: 'tool', tool_call_id: 'w1', content: expect.stringContaining('<tool_result name="write_file">') }]);
    const saved = inStore(ctx.ws, (store) => ({ meta: store.getMeta(id), context: store.getContext(id) }));
    expect(saved.context.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
    expect(saved.meta.status).toBe('saved');
    expect(saved.meta.summary).toBe('Test session');
    expect(saved.meta.cwd).toBe(ctx.ws.projectDir);
  });

  it('asks before a write: y runs it', async () => {
    ctx.server.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'A' } }] }, { text: 'Done.' }, SUMMARY);
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, [], 'write a\ny\n');
    expect(run.stdout).toContain('Permission needed for write_file');
    expect(run.stdout).toContain(`${WRITE_PROMPT}y\n`);
    expect(fs.readFileSync(path.join(ctx.ws.projectDir, 'a.txt'), 'utf8')).toBe('A');
  });

  it('asks before a write: n denies it and the model is told', async () => {
    ctx.server.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'A' } }] }, { text: 'OK, not writing.' }, SUMMARY);
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, [], 'write a\nn\n');
    expect(run.stdout).toContain(`${WRITE_PROMPT}n\n`);
    expect(fs.existsSync(path.join(ctx.ws.projectDir, 'a.txt'))).toBe(false);
    expect(toolMessages(bodies()[1])[0].content).toMatch(/^Denied by the user/);
  });

  it('asks before a write: end of input is a denial and the session ends cleanly', async () => {
    ctx.server.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'A' } }] }, { text: 'OK.' }, SUMMARY);
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, [], 'write a\n');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`${WRITE_PROMPT}\n`);
    expect(fs.existsSync(path.join(ctx.ws.projectDir, 'a.txt'))).toBe(false);
    expect(toolMessages(bodies()[1])[0].content).toMatch(/^Denied by the user/);
  });

  it('answering a allows the tool for the session; \\grants lists it and \\revoke N takes it back', async () => {
    fs.writeFileSync(path.join(ctx.ws.projectDir, 'a.txt'), 'one\n');
    const edit = (id: string, from: string, to: string) => ({ id, name: 'edit_file', arguments: { path: 'a.txt', old_string: from, new_string: to } });
    ctx.server.enqueue({ toolCalls: [edit('e1', 'one', 'two')] }, { toolCalls: [edit('e2', 'two', 'three')] }, { text: 'Edited twice.' }, SUMMARY);
    ctx.server.enqueue({ toolCalls: [edit('e3', 'three', 'four')] }, { text: 'Not allowed.' });
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, [], 'edit twice\na\n\\grants\n\\revoke 1\n\\grants\nedit again\nn\n');
    expect(run.code).toBe(0);
    // The edit is shown as a diff against the file, line numbers and all.
    expect(run.stdout).toContain('  Diff against a.txt as it is now:\n  @@ line 1 → 1 @@\n  1   - one\n    1 + two\n');
    expect(run.stdout).toContain('Allow this action? [y/n/a] (a: allow every edit_file call for the rest of this session) a\n');
    expect(run.stdout.match(/Permission needed for edit_file/g)).toHaveLength(2);
    expect(run.stdout).toContain('Allowed for this session (\\revoke N takes one back):\n  1. every edit_file call\n');
    expect(run.stdout).toContain('Revoked: every edit_file call is asked about again.\n');
    expect(run.stdout).toContain('Nothing is allowed for this session beyond the mode.');
    expect(fs.readFileSync(path.join(ctx.ws.projectDir, 'a.txt'), 'utf8')).toBe('three\n');
  });

  it('blocks a hard-policy command without asking, whatever the mode', async () => {
    ctx.server.enqueue({ toolCalls: [{ name: 'run_bash', arguments: { command: 'sudo rm -rf /' } }] }, { text: 'Refused.' }, SUMMARY);
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--mode', 'dangerouslySkipPermissions'], 'wipe it\n');
    expect(run.stdout).not.toContain('Allow this action?');
    expect(run.stdout).toContain('[run_bash] -> Denied by policy');
    expect(toolMessages(bodies()[1])[0].content).toMatch(/^Denied by policy \(shell denylist/);
  });

  it('reports malformed tool arguments to the model as a validation error', async () => {
    ctx.server.enqueue({ toolCalls: [{ name: 'read_file', arguments: '{"path": 42}' }] }, { text: 'Let me fix that.' }, SUMMARY);
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, [], 'read something\n');
    expect(run.code).toBe(0);
    expect(toolMessages(bodies()[1])[0].content).toContain('Invalid arguments for read_file: path:');
  });

  it('offers to revert the files the session changed; end of input keeps them', async () => {
    ctx.server.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'kept.txt', content: 'new' } }] }, { text: 'Written.' }, SUMMARY);
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--mode', 'acceptEdits'], 'write it\n');
    expect(run.stdout).toContain('Files changed in this session:\n  kept.txt\nRevert 1 changed file(s)? [y/N] \n');
    expect(fs.readFileSync(path.join(ctx.ws.projectDir, 'kept.txt'), 'utf8')).toBe('new');
  });

  it('reverts them when the user answers y', async () => {
    fs.writeFileSync(path.join(ctx.ws.projectDir, 'notes.txt'), 'original\n');
    ctx.server.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'changed\n' } }] }, { text: 'Changed.' }, SUMMARY);
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--mode', 'acceptEdits'], 'change it\n\\exit\ny\n');
    expect(run.stdout).toContain('Reverted 1 file(s).');
    expect(fs.readFileSync(path.join(ctx.ws.projectDir, 'notes.txt'), 'utf8')).toBe('original\n');
  });

  it('warns about secret-looking variables by name and never hands them to tools', async () => {
    ctx.server.enqueue({ toolCalls: [{ name: 'run_bash', arguments: { command: 'echo "key=[$MY_SERVICE_TOKEN]"' } }] }, { text: 'Checked.' }, SUMMARY);
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--mode', 'dangerouslySkipPermissions'], 'show the token\n', {
      MY_SERVICE_TOKEN: 'tok-4f9a8b7c6d5e',
    });
    expect(run.stderr).toContain('MY_SERVICE_TOKEN');
    expect(run.stderr).not.toContain('tok-4f9a8b7c6d5e');
    expect(toolMessages(bodies()[1])[0].content).toContain('key=[]');
  });
});
