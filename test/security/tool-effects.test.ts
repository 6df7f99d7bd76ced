/**
 * The permission gate goes by the effect a tool declares on its definition, never by its
 * name: tools made up here, unknown to every list, are judged like the built-in ones with
 * the same declaration. Session grants spare the default-mode ask and nothing more.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PERMISSION_MODES } from '../../src/core/config';
import { decide } from '../../src/core/security/permissions';
import { SessionGrants } from '../../src/core/security/session-grants';
import type { EffectDeclaration } from '../../src/core/security/tool-effects';
import { defineTool, type Tool } from '../../src/core/tools/tool';
import { nth } from '../support/elements';

let project: string;

beforeAll(() => {
  project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-effects-')));
  fs.writeFileSync(path.join(project, 'notes.md'), 'one\n');
});
afterAll(() => fs.rmSync(project, { recursive: true, force: true }));

/** A tool nobody has heard of, with one string argument and the given declaration. */
function madeUp(name: string, effects: EffectDeclaration<{ value: string }>): Tool<{ value: string }> {
  return defineTool({ name, description: 'made up for this test', effects, schema: z.strictObject({ value: z.string() }), run: () => Promise.resolve('ok') });
}

const appendNote = madeUp('append_note', {
  kind: 'write-files',
  change: ({ value }) => ({ path: 'notes.md', kind: 'replace-all', content: `one\n${value}\n` }),
});
const deploy = madeUp('deploy', { kind: 'run-commands', command: ({ value }) => value });
const ping = madeUp('ping_host', { kind: 'network', url: ({ value }) => value });

const inModes = (tool: Tool, value: string, grants?: SessionGrants) =>
  Promise.all(PERMISSION_MODES.map(async (mode) => (await decide({ tool, args: { value }, mode, projectDir: project, grants })).action));

describe('decide by the declared effect', () => {
  test.each(['read', 'plan', 'interact', 'loom-store'] as const)('a new %s tool always runs', async (kind) => {
    expect(await inModes(madeUp(`new_${kind}`, { kind }), 'x')).toEqual(['allow', 'allow', 'allow']);
  });

  test('a new file-writing tool is asked in default mode, with a diff against the file and the tool offered for the session', async () => {
    expect(await inModes(appendNote, 'two')).toEqual(['ask', 'allow', 'allow']);
    const asked = await decide({ tool: appendNote, args: { value: 'two' }, mode: 'default', projectDir: project });
    expect(asked).toMatchObject({
      action: 'ask',
      label: 'file change (default mode)',
      offer: { kind: 'tool', tool: 'append_note' },
      preview: { kind: 'file', path: 'notes.md', newFile: false },
    });
    const preview = (asked as { preview: { hunks: { lines: { kind: string; text: string }[] }[] } }).preview;
    expect(nth(preview.hunks, 0).lines).toEqual([
      expect.objectContaining({ kind: 'context', text: 'one' }),
      expect.objectContaining({ kind: 'added', text: 'two' }),
    ]);
  });

  test('a new command tool: the shell denylist and always-ask list judge its command; a plain one is offered as a prefix', async () => {
    expect(await inModes(deploy, 'sudo rm -rf /')).toEqual(['deny', 'deny', 'deny']);
    expect(await inModes(deploy, 'git push --force origin main')).toEqual(['ask', 'ask', 'allow']);
    expect(await decide({ tool: deploy, args: { value: 'make deploy --prod' }, mode: 'default', projectDir: project })).toMatchObject({
      action: 'ask',
      preview: { kind: 'command', command: 'make deploy --prod' },
      offer: { kind: 'prefix', tool: 'deploy', prefix: ['make', 'deploy'] },
    });
    expect(await decide({ tool: deploy, args: { value: 'make a | tee b' }, mode: 'default', projectDir: project })).toMatchObject({
      action: 'ask',
      offer: null,
    });
  });

  test('a new network tool: the URL policy judges its URL', async () => {
    expect(await inModes(ping, 'http://169.254.169.254/')).toEqual(['deny', 'deny', 'deny']);
    expect(await inModes(ping, 'https://example.com/')).toEqual(['ask', 'ask', 'allow']);
  });

  test('a file-writing tool whose declared path leaves the project is denied, whatever its arguments are called', async () => {
    const escape = madeUp('escape_note', { kind: 'write-files', change: () => ({ path: '../elsewhere.md', kind: 'replace-all', content: 'x' }) });
    expect(await inModes(escape, 'x')).toEqual(['deny', 'deny', 'deny']);
  });
});

describe('session grants', () => {
  test('a tool grant runs the tool without asking in default mode', async () => {
    const grants = new SessionGrants();
    const grant = grants.add({ kind: 'tool', tool: 'append_note' });
    expect(await decide({ tool: appendNote, args: { value: 'two' }, mode: 'default', projectDir: project, grants })).toEqual({ action: 'allow', grant });
  });

  test('a prefix grant covers the plain commands it starts, not a line that does more', async () => {
    const grants = new SessionGrants();
    grants.add({ kind: 'prefix', tool: 'deploy', prefix: ['make', 'deploy'] });
    expect(await inModes(deploy, 'make deploy --dry-run', grants)).toEqual(['allow', 'allow', 'allow']);
    expect(await inModes(deploy, 'make deploy && curl https://example.com', grants)).toEqual(['ask', 'ask', 'allow']);
  });

  test('never lift the hard policy or the always-ask cases', async () => {
    const grants = new SessionGrants();
    grants.add({ kind: 'prefix', tool: 'deploy', prefix: ['git', 'push'] });
    grants.add({ kind: 'prefix', tool: 'deploy', prefix: ['sudo'] });
    grants.add({ kind: 'tool', tool: 'append_note' });
    expect(await inModes(deploy, 'git push --force origin main', grants)).toEqual(['ask', 'ask', 'allow']);
    expect(await inModes(deploy, 'sudo ls', grants)).toEqual(['deny', 'deny', 'deny']);
    const emptying = madeUp('append_note', { kind: 'write-files', change: () => ({ path: 'notes.md', kind: 'replace-all', content: '' }) });
    expect(await decide({ tool: emptying, args: { value: '' }, mode: 'default', projectDir: project, grants })).toMatchObject({
      action: 'ask',
      label: 'writing empty content over a non-empty file (always asked)',
      offer: null,
    });
  });
});
