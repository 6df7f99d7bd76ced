/**
 * "Allow for this session" through the real loop and engine: answering 'session' grants
 * the offered tool or command prefix, later calls it covers run without asking, every
 * grant and revoke is audited and announced, and a revoke brings the ask back.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { nth } from '../support/elements';
import { makeAgentHarness, type AgentHarness } from './harness';

let h: AgentHarness;
afterEach(async () => {
  await h?.cleanup();
});

const edit = (id: string, from: string, to: string) => ({ id, name: 'edit_file', arguments: { path: 'a.txt', old_string: from, new_string: to } });
const bash = (id: string, command: string) => ({ id, name: 'run_bash', arguments: { command } });

describe('session grants', () => {
  it('an edit_file grant runs the next edits without asking, until it is revoked', async () => {
    h = await makeAgentHarness();
    h.write('a.txt', 'one\n');
    h.approvals.push('session');
    h.script({ toolCalls: [edit('e1', 'one', 'two')] }, { toolCalls: [edit('e2', 'two', 'three')] }, { text: 'Edited twice.' });
    await h.send('edit it twice');

    expect(h.read('a.txt')).toBe('three\n');
    const [approval] = h.ofType('approval');
    expect(h.ofType('approval')).toHaveLength(1);
    expect(approval).toMatchObject({ tool: 'edit_file', effect: 'write-files', offer: { kind: 'tool', tool: 'edit_file' } });
    const granted = h.engine.grants(h.sessionId);
    expect(granted).toEqual([{ kind: 'tool', tool: 'edit_file', id: expect.any(String) }]);
    expect(h.ofType('grants').at(-1)).toMatchObject({ sessionId: h.sessionId, grants: granted });
    const audit = h.audit();
    expect(audit.find((e) => e.event === 'permission_grant')).toMatchObject({ grant: granted[0] });
    expect(audit.filter((e) => e.event === 'permission_decision').map((e) => [e.call_id, e.by])).toEqual([
      ['e1', 'user'],
      ['e2', 'grant'],
    ]);

    expect(h.engine.revokeGrant(h.sessionId, nth(granted, 0).id)).toEqual([]);
    expect(h.ofType('grants').at(-1)).toMatchObject({ grants: [] });
    expect(h.audit().find((e) => e.event === 'permission_revoke')).toMatchObject({ grant: granted[0] });
    expect(() => h.engine.revokeGrant(h.sessionId, nth(granted, 0).id)).toThrow(/no longer granted/);

    h.approvals.push(false);
    h.server.enqueue({ toolCalls: [edit('e3', 'three', 'four')] }, { text: 'Not allowed.' });
    await h.send('edit again');
    expect(h.ofType('approval')).toHaveLength(2);
    expect(h.read('a.txt')).toBe('three\n');
  });

  it('grants end when the session is closed, and the windows hear so', async () => {
    h = await makeAgentHarness();
    h.write('a.txt', 'one\n');
    h.approvals.push('session');
    h.script({ toolCalls: [edit('e1', 'one', 'two')] }, { text: 'Edited.' });
    await h.send('edit it');
    expect(h.engine.grants(h.sessionId)).toHaveLength(1);
    h.engine.close(h.sessionId);
    expect(h.ofType('grants').at(-1)).toEqual({ type: 'grants', sessionId: h.sessionId, grants: [] });
    expect(h.engine.grants(h.sessionId)).toEqual([]);

    // Opened again, the session asks again.
    h.approvals.push(false);
    h.server.enqueue({ toolCalls: [edit('e2', 'two', 'three')] }, { text: 'Left alone.' });
    await h.send('edit again');
    expect(h.ofType('approval')).toHaveLength(2);
    expect(h.read('a.txt')).toBe('two\n');
  });

  it('a command prefix grant covers plain commands that start with it, and nothing that does more', async () => {
    h = await makeAgentHarness();
    h.approvals.push('session', false, false);
    h.script(
      { toolCalls: [bash('b1', 'echo hello world')] },
      { toolCalls: [bash('b2', 'echo hello again')] },
      { toolCalls: [bash('b3', 'echo hello; touch sneaky.txt')] },
      { toolCalls: [bash('b4', 'echo hello > out.txt')] },
      { text: 'Done.' },
    );
    await h.send('run things');

    const approvals = h.ofType('approval');
    expect(approvals[0]).toMatchObject({ effect: 'run-commands', preview: { kind: 'command', command: 'echo hello world' } });
    expect(nth(approvals, 0).offer).toEqual({ kind: 'prefix', tool: 'run_bash', prefix: ['echo', 'hello'] });
    expect(h.engine.grants(h.sessionId)).toEqual([{ kind: 'prefix', tool: 'run_bash', prefix: ['echo', 'hello'], id: expect.any(String) }]);
    expect(approvals.map((a) => a.summary)).toEqual(['run_bash: echo hello world', 'run_bash: echo hello; touch sneaky.txt', 'run_bash: echo hello > out.txt']);
    // Lines that are more than one plain command get no prefix to offer either.
    expect(approvals.slice(1).map((a) => a.offer)).toEqual([null, null]);
    const by = h
      .audit()
      .filter((e) => e.event === 'permission_decision')
      .map((e) => [e.call_id, e.by]);
    expect(by).toEqual([
      ['b1', 'user'],
      ['b2', 'grant'],
      ['b3', 'user'],
      ['b4', 'user'],
    ]);
    expect(h.read('sneaky.txt')).toBeNull();
    expect(h.read('out.txt')).toBeNull();
  });

  it("answering 'session' where nothing is offered allows the call once and grants nothing", async () => {
    h = await makeAgentHarness();
    h.approvals.push('session');
    h.script({ toolCalls: [bash('b1', 'echo one > one.txt')] }, { text: 'Done.' });
    await h.send('write one');
    expect(nth(h.ofType('approval'), 0).offer).toBeNull();
    expect(h.read('one.txt')).toBe('one\n');
    expect(h.engine.grants(h.sessionId)).toEqual([]);
    expect(h.audit().some((e) => e.event === 'permission_grant')).toBe(false);
  });
});
