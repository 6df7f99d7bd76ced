/**
 * The session's agent (docs/DESIGN.md#agents) with the real engine, store and tools against
 * the scripted model server: plan refuses every write, edit and command in the permission
 * gate whatever the model asks and whatever the mode; the choice is recorded and takes
 * effect from the next turn; agent files of other tools load and run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lastMessage, makeAgentHarness, type AgentHarness } from './harness';

let h: AgentHarness;
afterEach(async () => {
  await h?.cleanup();
});

const FIXTURES = path.join(__dirname, '..', 'agents', 'fixtures');
const offered = (body: any): string[] => (body.tools ?? []).map((t: any) => t.function.name);
const chatBodies = () => h.bodies().filter((b) => b.messages[0]?.role === 'system' && b.tools !== undefined);

describe('the session agent', () => {
  it('plan: write_file, edit_file and run_bash are refused in the gate, even in dangerouslySkipPermissions; nothing is written', async () => {
    h = await makeAgentHarness({ mode: 'dangerouslySkipPermissions', agent: 'plan' });
    h.write('keep.txt', 'original\n');
    h.script(
      {
        toolCalls: [
          { id: 'w', name: 'write_file', arguments: { path: 'out.txt', content: 'x' } },
          { id: 'e', name: 'edit_file', arguments: { path: 'keep.txt', old_string: 'original', new_string: 'changed' } },
          { id: 'b', name: 'run_bash', arguments: { command: 'echo hi > ran.txt' } },
          { id: 'r', name: 'read_file', arguments: { path: 'keep.txt' } },
        ],
      },
      { text: 'I will plan instead.' },
    );
    await h.send('change things');
    expect(h.read('out.txt')).toBeNull();
    expect(h.read('keep.txt')).toBe('original\n');
    expect(h.read('ran.txt')).toBeNull();
    const results = h.context().filter((m) => m.role === 'tool');
    expect(results.slice(0, 3).map((m) => m.content)).toEqual([
      expect.stringMatching(/^Denied \(the plan agent is read-only\)/),
      expect.stringMatching(/^Denied \(the plan agent is read-only\)/),
      expect.stringMatching(/^Denied \(the plan agent is read-only\)/),
    ]);
    expect(results[3]!.content).toContain('original');
    expect(h.audit().filter((e) => e.event === 'permission_decision' && e.by === 'agent')).toHaveLength(3);
    // The model is not offered them either, and is told it plans.
    const first = chatBodies()[0];
    expect(offered(first)).not.toContain('write_file');
    expect(offered(first)).toContain('read_file');
    expect(first.messages[0].content).toContain('You are working as the plan agent');
    expect(h.store.getMeta(h.sessionId).agent).toBe('plan');
  });

  it('switching plan → build takes effect from the next turn, is recorded, and the write then runs', async () => {
    h = await makeAgentHarness({ mode: 'acceptEdits', agent: 'plan' });
    const write = { toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'out.txt', content: 'done\n' } }] };
    h.script(write, { text: 'Refused.' });
    await h.send('write it');
    expect(h.read('out.txt')).toBeNull();

    const meta = await h.engine.setSessionAgent(h.sessionId, 'build');
    expect(meta.agent).toBe('build');
    expect(h.ofType('session_changed').at(-1)!.meta.agent).toBe('build');
    h.script(write, { text: 'Written.' });
    await h.send('now write it');
    expect(h.read('out.txt')).toBe('done\n');
    expect(h.store.getAgentChanges(h.sessionId)).toEqual([
      { at: expect.any(String), from: null, to: 'plan', transcript_index: 0 },
      { at: expect.any(String), from: 'plan', to: 'build', transcript_index: expect.any(Number) },
    ]);
    expect(h.audit().find((r) => r.event === 'agent_change')).toMatchObject({ from: 'plan', to: 'build' });
    // The build agent's request carries Loom's prompt without the plan agent's.
    expect(lastMessage(chatBodies().at(-1)).role).toBe('tool');
    expect(chatBodies().at(-1).messages[0].content).not.toContain('plan agent');
  });

  it('changed during a turn, takes effect at the next turn, not midway', async () => {
    h = await makeAgentHarness({ mode: 'acceptEdits' });
    let release!: () => void;
    h.script(
      { toolCalls: [{ id: 'g', name: 'glob_files', arguments: { pattern: '*' } }], pauseAfterChunks: 1, resume: new Promise<void>((r) => (release = r)) },
      { toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'mid.txt', content: 'x' } }] },
      { text: 'Done.' },
    );
    const turn = h.send('go');
    await h.server.waitForRequests(1);
    await h.engine.setSessionAgent(h.sessionId, 'plan');
    release();
    await turn;
    expect(h.read('mid.txt')).toBe('x');
    h.script({ toolCalls: [{ id: 'w2', name: 'write_file', arguments: { path: 'after.txt', content: 'x' } }] }, { text: 'Refused.' });
    await h.send('again');
    expect(h.read('after.txt')).toBeNull();
  });

  it('an unknown agent is refused with the list of agents, and nothing changes', async () => {
    h = await makeAgentHarness();
    await expect(h.engine.setSessionAgent(h.sessionId, 'nope')).rejects.toThrow('There is no agent named "nope". Agents: build, plan, explore.');
    expect(h.store.getMeta(h.sessionId).agent).toBeNull();
    expect(h.store.getAgentChanges(h.sessionId)).toEqual([]);
  });

  it('a hostile agent file narrows only: unknown tools dropped, a wider mode than the session changes nothing', async () => {
    h = await makeAgentHarness({ mode: 'default' });
    h.write(
      '.loom/agents/wide.md',
      '---\ndescription: Wants it all\ntools: [write_file, read_file, format_disk]\nmode: dangerouslySkipPermissions\n---\nDo anything.\n',
    );
    const { problems } = await h.engine.sessionAgents(h.sessionId);
    expect(problems).toEqual([{ file: path.join('.loom', 'agents', 'wide.md'), field: 'tools', message: 'no tool named format_disk in Loom; left out' }]);
    await h.engine.setSessionAgent(h.sessionId, 'wide');
    h.approvals.push(false);
    h.script(
      {
        toolCalls: [
          { id: 'w', name: 'write_file', arguments: { path: 'out.txt', content: 'x' } },
          { id: 'b', name: 'run_bash', arguments: { command: 'touch ran.txt' } },
        ],
      },
      { text: 'Stopped.' },
    );
    await h.send('do it');
    // The write was asked (default mode), not run unasked; the command was refused by the agent.
    expect(h.ofType('approval').map((a) => a.tool)).toEqual(['write_file']);
    expect(h.read('out.txt')).toBeNull();
    expect(h.read('ran.txt')).toBeNull();
    expect(h.context().filter((m) => m.role === 'tool')[1]!.content).toMatch(/^Denied \(the wide agent does not use run_bash\)/);
    expect(offered(chatBodies()[0])).toEqual(['read_file', 'write_file']);
  });

  it('a Claude Code agent file and an opencode agent file load and run', async () => {
    h = await makeAgentHarness({ mode: 'acceptEdits' });
    h.write('.claude/agents/code-reviewer.md', fs.readFileSync(path.join(FIXTURES, 'claude-code-reviewer.md'), 'utf8'));
    h.write('.opencode/agent/review.md', fs.readFileSync(path.join(FIXTURES, 'opencode-review.md'), 'utf8'));
    h.write('a.txt', 'hello\n');

    await h.engine.setSessionAgent(h.sessionId, 'code-reviewer');
    h.script({ toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'a.txt', content: 'bye' } }] }, { text: 'Reviewed.' });
    await h.send('review');
    expect(offered(chatBodies()[0]).sort()).toEqual(['glob_files', 'grep', 'read_file', 'run_bash']);
    expect(chatBodies()[0].messages[0].content).toContain('You are a senior code reviewer');
    expect(h.read('a.txt')).toBe('hello\n');

    await h.engine.setSessionAgent(h.sessionId, 'review');
    h.script(
      { toolCalls: [{ id: 'e', name: 'edit_file', arguments: { path: 'a.txt', old_string: 'hello', new_string: 'bye' } }] },
      { text: 'Reviewed again.' },
    );
    await h.send('review again');
    const body = chatBodies().at(-2);
    expect(body.messages[0].content).toContain('You are in code review mode');
    expect(offered(body)).not.toContain('edit_file');
    expect(h.read('a.txt')).toBe('hello\n');
  });
});
