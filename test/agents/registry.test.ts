/**
 * Agents as a project and the data folder define them: Loom's, Claude Code's and opencode's
 * files read unchanged, the built-ins, precedence, and one line per bad file or unsupported field.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { problemLine } from '../../src/core/agents/definition';
import { narrowConfig, offeredTools, refusal } from '../../src/core/agents/narrow';
import { findAgent, loadAgents } from '../../src/core/agents/registry';
import { DEFAULTS } from '../../src/core/config';
import { ALL_TOOLS } from '../../src/core/tools/index';

const FIXTURES = path.join(__dirname, 'fixtures');
const knownTools = ALL_TOOLS.map((t) => t.name);
let root: string;
let projectDir: string;
let dataDir: string;

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-agents-')));
  projectDir = path.join(root, 'project');
  dataDir = path.join(root, 'data');
  fs.mkdirSync(projectDir);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function put(rel: string, text: string): void {
  const file = path.join(projectDir, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

const load = () => loadAgents({ projectDir, dataDir, knownTools });

describe('agent registry', () => {
  it('has build, plan and explore built in', async () => {
    const { agents, problems } = await load();
    expect(agents.map((a) => a.name)).toEqual(['build', 'plan', 'explore']);
    expect(problems).toEqual([]);
    expect(findAgent({ agents, problems }, 'plan')).toMatchObject({ access: 'readOnly', scope: 'built-in' });
  });

  it('reads a Claude Code agent file unchanged, mapping its tools and naming what Loom does not support', async () => {
    put('.claude/agents/code-reviewer.md', fs.readFileSync(path.join(FIXTURES, 'claude-code-reviewer.md'), 'utf8'));
    const { agents, problems } = await load();
    expect(agents[0]).toMatchObject({
      name: 'code-reviewer',
      format: 'claude-code',
      scope: 'project',
      file: path.join('.claude', 'agents', 'code-reviewer.md'),
      tools: ['read_file', 'grep', 'glob_files', 'run_bash'],
      prompt: expect.stringMatching(/^You are a senior code reviewer/),
    });
    expect(agents[0]!.model).toBeUndefined(); // inherit
    expect(problems.map(problemLine)).toEqual([`${path.join('.claude', 'agents', 'code-reviewer.md')}: color: not supported by Loom; ignored`]);
  });

  it('reads opencode agent files, v1 tools and permission and v2 permissions, as narrowing', async () => {
    put('.opencode/agent/review.md', fs.readFileSync(path.join(FIXTURES, 'opencode-review.md'), 'utf8'));
    put('.opencode/agents/reviewer.md', fs.readFileSync(path.join(FIXTURES, 'opencode-v2-reviewer.md'), 'utf8'));
    const { agents, problems } = await load();
    const review = agents.find((a) => a.name === 'review')!;
    expect(review).toMatchObject({ format: 'opencode', description: 'Reviews code for quality and best practices', access: 'default' });
    expect(review.tools).not.toContain('write_file');
    expect(review.tools).not.toContain('edit_file');
    expect(review.tools).not.toContain('run_bash');
    expect(review.tools).toContain('read_file');
    expect(review.model).toBeUndefined();
    const reviewer = agents.find((a) => a.name === 'reviewer')!;
    expect(reviewer.tools).not.toContain('run_bash');
    expect(reviewer.tools).not.toContain('write_file');
    expect(problems.map(problemLine)).toEqual([
      `${path.join('.opencode', 'agent', 'review.md')}: temperature: not supported by Loom; ignored`,
      `${path.join('.opencode', 'agent', 'review.md')}: model: "anthropic/claude-sonnet-4-20250514" names a provider; the session's model is used`,
    ]);
  });

  it('a hostile file: unknown tools are left out and named, a wider mode than the session is capped by it', async () => {
    put(
      '.loom/agents/wide.md',
      ['---', 'description: Wants everything', 'tools: [read_file, write_file, rm_rf, sudo]', 'mode: dangerouslySkipPermissions', '---', 'Do anything.'].join(
        '\n',
      ),
    );
    const { agents, problems } = await load();
    const wide = agents[0]!;
    expect(wide.tools).toEqual(['read_file', 'write_file']);
    expect(problems.map(problemLine)).toEqual([`${path.join('.loom', 'agents', 'wide.md')}: tools: no tool named rm_rf, sudo in Loom; left out`]);
    // The session's mode is default: the agent's wider mode changes nothing.
    expect(narrowConfig({ ...DEFAULTS, dataDir, apiKey: '', approvePlan: false, mode: 'default' }, wide).mode).toBe('default');
    expect(
      narrowConfig({ ...DEFAULTS, dataDir, apiKey: '', approvePlan: false, mode: 'dangerouslySkipPermissions' }, { ...wide, access: 'acceptEdits' }).mode,
    ).toBe('acceptEdits');
    const runBash = ALL_TOOLS.find((t) => t.name === 'run_bash')!;
    expect(refusal(wide, runBash)).toBe('the wide agent does not use run_bash');
    expect(offeredTools(wide, ALL_TOOLS).map((t) => t.name)).toEqual(['read_file', 'write_file']);
  });

  it('one clear line per bad file, naming the file and the field; the others still load', async () => {
    put('.loom/agents/good.md', '---\ndescription: Fine\n---\nHello.');
    put('.loom/agents/no-description.md', '---\nname: nodesc\n---\nHello.');
    put('.loom/agents/bad-mode.md', '---\ndescription: x\nmode: root\n---\n');
    put('.loom/agents/bad-yaml.md', '---\ndescription: [unclosed\n---\n');
    put('.loom/agents/plan.md', '---\ndescription: Not read-only at all\n---\n');
    put('.claude/agents/turns.md', '---\nname: turns\ndescription: x\nmaxTurns: many\n---\n');
    const { agents, problems } = await load();
    expect(agents.map((a) => a.name)).toEqual(['good', 'build', 'plan', 'explore']);
    expect(findAgent({ agents, problems }, 'plan')!.scope).toBe('built-in');
    const loom = (name: string) => path.join('.loom', 'agents', name);
    expect(problems.map(problemLine)).toEqual([
      `${loom('bad-mode.md')}: mode: "root" is not one of readOnly, default, acceptEdits, dangerouslySkipPermissions`,
      `${loom('bad-yaml.md')}: line 2: a "[" list with no closing "]"`,
      `${loom('no-description.md')}: description: Invalid input: expected string, received undefined`,
      `${loom('plan.md')}: name: "plan" is a built-in agent's name; choose another`,
      `${path.join('.claude', 'agents', 'turns.md')}: maxTurns: must be a number`,
    ]);
  });

  it("the README's example loads as written", async () => {
    const readme = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
    const example = /## Agents[\s\S]*?```markdown\n([\s\S]*?)```/.exec(readme)![1]!;
    put('.loom/agents/reviewer.md', example);
    const { agents, problems } = await load();
    expect(problems).toEqual([]);
    expect(agents[0]).toMatchObject({ name: 'reviewer', tools: ['read_file', 'grep', 'glob_files'], access: 'readOnly', maxTurns: 20 });
  });

  it('the project wins over the data folder; a link out of the project is not read', async () => {
    fs.mkdirSync(path.join(dataDir, 'agents'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'agents', 'helper.md'), '---\ndescription: From the data folder\n---\n');
    fs.writeFileSync(path.join(dataDir, 'agents', 'mine.md'), '---\ndescription: Mine\n---\n');
    put('.loom/agents/helper.md', '---\ndescription: From the project\n---\n');
    fs.writeFileSync(path.join(root, 'secret.md'), 'not for the model');
    fs.symlinkSync(path.join(root, 'secret.md'), path.join(projectDir, '.loom', 'agents', 'leak.md'));
    const { agents, problems } = await load();
    expect(agents.map((a) => [a.name, a.scope])).toEqual([
      ['helper', 'project'],
      ['mine', 'data'],
      ['build', 'built-in'],
      ['plan', 'built-in'],
      ['explore', 'built-in'],
    ]);
    expect(agents[0]!.description).toBe('From the project');
    expect(problems.map(problemLine)).toEqual([`${path.join('.loom', 'agents', 'leak.md')}: not a regular file (a link?); ignored`]);
  });
});
