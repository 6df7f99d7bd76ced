/**
 * Every permission outcome as the loop applies it: allowed by the mode, asked and allowed,
 * asked and denied, denied by the hard policy, and --approve-plan.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { nth } from '../support/elements';
import { lastMessage, makeAgentHarness, type AgentHarness } from './harness';

let h: AgentHarness;
afterEach(async () => {
  await h?.cleanup();
});

const writeCall = { id: 'w1', name: 'write_file', arguments: { path: 'out.txt', content: 'written\n' } };

function decisions(h: AgentHarness) {
  return h.audit().filter((e) => e.event === 'permission_decision');
}

describe('permissions', () => {
  it('asks in default mode; yes runs the write', async () => {
    h = await makeAgentHarness();
    h.approvals.push(true);
    h.script({ toolCalls: [writeCall] }, { text: 'Done.' });
    await h.send('write it');
    const approval = nth(h.ofType('approval'), 0);
    expect(approval).toMatchObject({ tool: 'write_file', summary: expect.stringContaining('out.txt') });
    expect(approval.label).toBeTruthy();
    expect(h.read('out.txt')).toBe('written\n');
    expect(decisions(h).at(-1)).toMatchObject({
      tool: 'write_file',
      call_id: 'w1',
      args: { path: 'out.txt', content: 'written\n' },
      decision: 'allow',
      by: 'user',
    });
  });

  it('asks in default mode; no leaves the file alone and tells the model it was denied', async () => {
    h = await makeAgentHarness();
    h.approvals.push(false);
    h.script({ toolCalls: [writeCall] }, { text: 'Understood.' });
    await h.send('write it');
    expect(h.read('out.txt')).toBeNull();
    expect(lastMessage(h.bodies()[1])).toEqual({ role: 'tool', tool_call_id: 'w1', content: expect.stringMatching(/^Denied by the user/) });
    expect(decisions(h).at(-1)).toMatchObject({ decision: 'deny', by: 'user' });
  });

  it('runs writes inside the project without asking in acceptEdits', async () => {
    h = await makeAgentHarness({ mode: 'acceptEdits' });
    h.script({ toolCalls: [writeCall] }, { text: 'Done.' });
    await h.send('write it');
    expect(h.ofType('approval')).toEqual([]);
    expect(h.read('out.txt')).toBe('written\n');
    expect(decisions(h).at(-1)).toMatchObject({ decision: 'allow', by: 'mode' });
  });

  it('still asks for a shell command in acceptEdits, and runs it in dangerouslySkipPermissions', async () => {
    h = await makeAgentHarness({ mode: 'acceptEdits' });
    h.approvals.push(false);
    h.script({ toolCalls: [{ name: 'run_bash', arguments: { command: 'echo hi > shell.txt' } }] }, { text: 'ok' });
    await h.send('run it');
    expect(h.ofType('approval')).toHaveLength(1);
    expect(h.read('shell.txt')).toBeNull();
    await h.cleanup();

    h = await makeAgentHarness({ mode: 'dangerouslySkipPermissions' });
    h.script({ toolCalls: [{ name: 'run_bash', arguments: { command: 'echo hi > shell.txt' } }] }, { text: 'ok' });
    await h.send('run it');
    expect(h.ofType('approval')).toEqual([]);
    expect(h.read('shell.txt')).toBe('hi\n');
  });

  it('runs known-safe commands without asking in default mode, and audits them as known-safe', async () => {
    h = await makeAgentHarness();
    h.write('notes.txt', 'first\nsecond\n');
    h.script(
      {
        toolCalls: [
          { id: 's1', name: 'run_bash', arguments: { command: 'ls && wc -l notes.txt' } },
          { id: 's2', name: 'run_bash', arguments: { command: "sed -n '2p' notes.txt | cat" } },
        ],
      },
      { text: 'Read.' },
    );
    await h.send('look around');
    expect(h.ofType('approval')).toEqual([]);
    const results = h.bodies()[1].messages.filter((m: any) => m.role === 'tool');
    expect(results.map((m: any) => m.content)).toEqual([expect.stringMatching(/notes\.txt[\s\S]*2 notes\.txt/), expect.stringMatching(/stdout ---\nsecond\n/)]);
    expect(decisions(h).map((d) => [d.call_id, d.decision, d.by, d.label])).toEqual([
      ['s1', 'allow', 'known-safe', 'known-safe: ls, wc'],
      ['s2', 'allow', 'known-safe', 'known-safe: sed, cat'],
    ]);
  });

  it('still asks for a look-alike of a known-safe command in default mode', async () => {
    h = await makeAgentHarness();
    h.approvals.push(false, false);
    h.script(
      {
        toolCalls: [
          { id: 'l1', name: 'run_bash', arguments: { command: 'ls > listing.txt' } },
          { id: 'l2', name: 'run_bash', arguments: { command: "sed -n 'w copy.txt' notes.txt" } },
        ],
      },
      { text: 'ok' },
    );
    await h.send('look around');
    expect(h.ofType('approval').map((a: any) => a.summary)).toEqual(['run_bash: ls > listing.txt', "run_bash: sed -n 'w copy.txt' notes.txt"]);
    expect(h.read('listing.txt')).toBeNull();
    expect(decisions(h).map((d) => d.by)).toEqual(['user', 'user']);
  });

  it('denies by the hard policy in every mode, without asking', async () => {
    h = await makeAgentHarness({ mode: 'dangerouslySkipPermissions' });
    h.script(
      {
        toolCalls: [
          { id: 'p1', name: 'run_bash', arguments: { command: 'sudo rm -rf /' } },
          { id: 'p2', name: 'write_file', arguments: { path: '../escape.txt', content: 'x' } },
        ],
      },
      { text: 'Blocked.' },
    );
    await h.send('do damage');
    expect(h.ofType('approval')).toEqual([]);
    const results = h.bodies()[1].messages.filter((m: any) => m.role === 'tool');
    expect(results.map((m: any) => m.tool_call_id)).toEqual(['p1', 'p2']);
    for (const result of results) expect(result.content).toMatch(/^Denied by policy \(.+\)/);
    expect(decisions(h).map((d) => [d.decision, d.by])).toEqual([
      ['deny', 'policy'],
      ['deny', 'policy'],
    ]);
  });

  it('always asks for an always-ask case even in acceptEdits (emptying a file)', async () => {
    h = await makeAgentHarness({ mode: 'acceptEdits' });
    h.write('keep.txt', 'precious\n');
    h.approvals.push(false);
    h.script({ toolCalls: [{ name: 'write_file', arguments: { path: 'keep.txt', content: '' } }] }, { text: 'ok' });
    await h.send('empty it');
    expect(nth(h.ofType('approval'), 0).label).toContain('always asked');
    expect(h.read('keep.txt')).toBe('precious\n');
  });
});

describe('--approve-plan', () => {
  it('shows the scratchpad and asks once, before the first action tool', async () => {
    h = await makeAgentHarness({ mode: 'dangerouslySkipPermissions', approvePlan: true });
    h.approvals.push(true);
    h.script(
      { toolCalls: [{ name: 'write_scratchpad', arguments: { content: 'Step 1: write out.txt' } }] },
      { toolCalls: [writeCall] },
      { toolCalls: [{ id: 'w2', name: 'write_file', arguments: { path: 'second.txt', content: 'more' } }] },
      { text: 'All done.' },
    );
    await h.send('plan then act');
    const approvals = h.ofType('approval');
    expect(approvals).toHaveLength(1);
    expect(nth(approvals, 0).summary).toContain('Step 1: write out.txt');
    expect(h.read('out.txt')).toBe('written\n');
    expect(h.read('second.txt')).toBe('more');
    expect(h.store.getPlan(h.sessionId).scratchpad).toBe('Step 1: write out.txt');
  });

  it('a rejected plan leaves the action undone and says so to the model', async () => {
    h = await makeAgentHarness({ mode: 'dangerouslySkipPermissions', approvePlan: true });
    h.approvals.push(false);
    h.script({ toolCalls: [writeCall] }, { text: 'I will wait.' });
    await h.send('act');
    expect(h.read('out.txt')).toBeNull();
    expect(lastMessage(h.bodies()[1]).content).toContain('plan was not approved');
  });
});

describe('file snapshots', () => {
  it('lists the files the session changed and reverts them', async () => {
    h = await makeAgentHarness({ mode: 'acceptEdits' });
    h.write('existing.txt', 'before\n');
    h.script(
      {
        toolCalls: [
          { id: 'a', name: 'write_file', arguments: { path: 'existing.txt', content: 'after\n' } },
          { id: 'b', name: 'write_file', arguments: { path: 'new/file.txt', content: 'new\n' } },
        ],
      },
      { text: 'ok' },
    );
    await h.send('change things');
    expect((await h.engine.changedFiles(h.sessionId)).map((f) => f.slice(h.projectDir.length + 1))).toEqual(['existing.txt', 'new/file.txt']);
    expect((await h.engine.revertChanges(h.sessionId)).reverted).toHaveLength(2);
    expect(h.read('existing.txt')).toBe('before\n');
    expect(h.read('new/file.txt')).toBeNull();
  });
});
