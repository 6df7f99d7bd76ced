/**
 * Agents at the command line (docs/DESIGN.md#agents): `--agent`, `\agent`, `--info`, the
 * export, and one line per bad agent file, with the real `loom` against the scripted server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { announcedId, inStore, runLoom, useLoomFixture } from './support';

const ctx = useLoomFixture();
const SUMMARY = { text: 'Agent session' };
const chatBodies = () => ctx.server.requests.map((r) => r.body).filter((b) => b.tools !== undefined || b.messages[0]?.content?.startsWith('You are Loom'));

function put(rel: string, text: string): void {
  const file = path.join(ctx.ws.projectDir, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

describe('loom --agent', () => {
  it('plan: the write is refused even in acceptEdits; --resume --agent build then writes; --info and the export list it', async () => {
    const write = { toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'plan.txt', content: 'done\n' } }] };
    ctx.server.enqueue(write, { text: 'Planned only.' }, SUMMARY);
    const first = await runLoom(ctx.ws, ctx.server.baseUrl, ['--agent', 'plan', '--mode', 'acceptEdits', '-p', 'make plan.txt']);
    expect(first.code).toBe(0);
    const id = announcedId(first.stderr);
    expect(first.stderr).toContain(`Session ${id} started in ${ctx.ws.projectDir}, agent plan.`);
    expect(fs.existsSync(path.join(ctx.ws.projectDir, 'plan.txt'))).toBe(false);

    ctx.server.enqueue(write, { text: 'Written.' });
    const second = await runLoom(ctx.ws, ctx.server.baseUrl, ['--resume', id, '--agent', 'build', '--mode', 'acceptEdits', '-p', 'now do it']);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('agent changed from plan to build');
    expect(fs.readFileSync(path.join(ctx.ws.projectDir, 'plan.txt'), 'utf8')).toBe('done\n');

    const info = await runLoom(ctx.ws, ctx.server.baseUrl, ['--info', id]);
    expect(info.stdout).toMatch(/^Agent: +build$/m);
    expect(info.stdout).toMatch(/^Agent changes:\n {2}.+ {2}build -> plan \(from message 1\)\n {2}.+ {2}plan -> build \(from message \d+\)$/m);
    const json = JSON.parse((await runLoom(ctx.ws, ctx.server.baseUrl, ['--info', id, '--json'])).stdout);
    expect(json).toMatchObject({
      agent: 'build',
      agent_changes: [
        { from: null, to: 'plan' },
        { from: 'plan', to: 'build' },
      ],
    });
    const exported = JSON.parse((await runLoom(ctx.ws, ctx.server.baseUrl, ['--export', id])).stdout);
    expect(exported.session).toMatchObject({
      agent: 'build',
      agent_changes: [
        { from: null, to: 'plan' },
        { from: 'plan', to: 'build' },
      ],
    });
    // The export imports with its agent and its changes.
    const file = path.join(ctx.ws.root, 'export.json');
    fs.writeFileSync(file, JSON.stringify(exported));
    const imported = await runLoom(ctx.ws, ctx.server.baseUrl, ['--import', file]);
    expect(imported.code).toBe(0);
    const copies = inStore(ctx.ws, (store) => store.list({ limit: 10 }).filter((s) => s.id !== id));
    expect(copies.map((s) => s.agent)).toEqual(['build']);
    expect(inStore(ctx.ws, (store) => store.getAgentChanges(copies[0]!.id)).map((c) => c.to)).toEqual(['plan', 'build']);
  });

  it('an unknown agent is one clear error listing the agents, and no session is made', async () => {
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--agent', 'wizard', '-p', 'hi']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toBe('loom: There is no agent named "wizard". Agents: build, plan, explore.\n');
    expect(inStore(ctx.ws, (store) => store.list({ limit: 10 }))).toEqual([]);
  });

  it('a bad agent file is one line naming the file and the field; the others still load and run', async () => {
    put('.loom/agents/broken.md', '---\ndescription: x\nmaxTurns: lots\n---\n');
    put('.claude/agents/reader.md', '---\nname: reader\ndescription: Reads only\ntools: Read, Teleport\n---\nYou only read.\n');
    ctx.server.enqueue({ text: 'Read.' }, SUMMARY);
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--agent', 'reader', '-p', 'read']);
    expect(run.code).toBe(0);
    const lines = run.stderr.split('\n').filter((l) => l.startsWith('Agent file'));
    expect(lines).toEqual([
      `Agent file ${path.join('.loom', 'agents', 'broken.md')}: maxTurns: must be a number`,
      `Agent file ${path.join('.claude', 'agents', 'reader.md')}: tools: no tool named Teleport in Loom; left out`,
    ]);
    const body = chatBodies()[0];
    expect(body.tools.map((t: any) => t.function.name)).toEqual(['read_file']);
    expect(body.messages[0].content).toContain('You only read.');
  });
});

describe('\\agent in the REPL', () => {
  it('lists the agents with the current one marked, and switches from the next message on', async () => {
    ctx.server.enqueue({ toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'r.txt', content: 'x' } }] }, { text: 'Refused.' }, SUMMARY);
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--mode', 'acceptEdits'], '\\agent\n\\agent plan\nwrite r.txt\n');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^\* build {4}Does the work/m);
    expect(run.stdout).toMatch(/^ {2}plan {5}Read-only/m);
    expect(run.stdout).toContain('Agent: plan from your next message on.');
    expect(fs.existsSync(path.join(ctx.ws.projectDir, 'r.txt'))).toBe(false);
  });
});
