/**
 * The known-safe list (known-safe.ts, command-rules.ts): what runs without asking in the
 * modes that ask for commands, and the look-alikes that must still be asked about.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { decide } from '../../src/core/security/permissions';
import { knownSafeCommands } from '../../src/core/security/known-safe';
import { sandboxInEffect } from '../../src/core/security/sandbox';
import { isPrintOnlySedScript } from '../../src/core/security/sed-script';
import { runBashTool } from '../../src/core/tools/shell-tool';

let root: string;
let project: string;

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-safe-')));
  project = path.join(root, 'project');
  fs.mkdirSync(path.join(project, 'src'), { recursive: true });
  fs.writeFileSync(path.join(project, 'notes.txt'), 'a\nb\n');
  fs.writeFileSync(path.join(project, 'src', 'main.ts'), 'export {};\n');
  fs.writeFileSync(path.join(project, 'patterns.txt'), 'a\n');
  fs.writeFileSync(path.join(root, 'outside.txt'), 'secret\n');
  fs.symlinkSync(path.join(root, 'outside.txt'), path.join(project, 'link-to-outside'));
  fs.symlinkSync(root, path.join(project, 'dir-to-outside'));
  fs.symlinkSync('notes.txt', path.join(project, 'link-inside'));
  execFileSync('mkfifo', [path.join(project, 'fifo')]);
  execFileSync('git', ['init', '-q'], { cwd: project });
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const safe = (command: string) => knownSafeCommands(command, project);
const gate = (command: string) => decide({ tool: runBashTool, args: { command }, mode: 'default', projectDir: project });

describe('known safe: runs without asking', () => {
  test.each([
    'ls',
    'ls -la src',
    'ls --color=never -R .',
    'pwd',
    'wc -l notes.txt src/main.ts',
    'cat notes.txt',
    'cat -n link-inside',
    "cat 'notes.txt'",
    'head -n 5 notes.txt',
    'head -5 notes.txt',
    'tail -n +2 notes.txt',
    'grep -rn export src',
    'grep -e a -f patterns.txt notes.txt',
    'grep -c a notes.txt | wc -l',
    'rg -n export',
    'rg --files src',
    'rg -g "*.ts" -t ts export src',
    "sed -n '1,5p' notes.txt",
    "sed -n '/a/{p;q}' notes.txt",
    "sed -n -e 's/a/b/gp' notes.txt",
    'ls && pwd; wc -l notes.txt || cat notes.txt',
    'ls \\\n  src',
  ])('%s', async (command) => {
    expect(await safe(command)).not.toBeNull();
    expect(await gate(command)).toMatchObject({ action: 'allow', knownSafe: expect.any(Array) });
  });

  test.skipIf(!sandboxInEffect())('git status, diff, log and show (the sandbox wraps them)', async () => {
    for (const command of ['git status', 'git --no-pager diff', 'git log -n 5 --oneline', 'git show HEAD -- src', 'git diff --stat HEAD~1']) {
      expect(await safe(command), command).toEqual(['git']);
    }
  });
});

describe('known safe: look-alikes are asked about as before', () => {
  test.each([
    // git: config, output files, external programs, other repositories
    'git -c core.pager=less log',
    'git -ccore.fsmonitor=x status',
    'git --output=/tmp/x diff',
    'git diff --output=/tmp/x',
    'git diff --outp=/tmp/x',
    'git diff --ext-diff',
    'git diff --ext-d',
    'git log -p --textconv',
    'git diff --no-index /etc/hostname /etc/passwd',
    'git diff /etc/hostname /etc/passwd',
    'git -C /etc status',
    'git --git-dir=/elsewhere/.git log',
    'git --work-tree=/ status',
    'git --exec-path=/tmp status',
    'git -p log',
    'git --paginate log',
    'git diff -O/etc/passwd',
    'git push',
    'git branch -D main',
    // rg and grep: programs run, links followed, unchecked files read
    'rg --pre cat x',
    'rg --pre=cat x',
    'rg --pre-glob "*" x',
    'rg -z x',
    'rg --search-zip x',
    'rg -iz x',
    'rg -L x',
    'rg --hostname-bin=/bin/sh x',
    'grep -R x .',
    'grep -f /etc/passwd notes.txt',
    'grep --exclude-from=/etc/passwd x notes.txt',
    // sed: writes, reads, runs
    "sed -n 'w /x' notes.txt",
    "sed -n '1e id' notes.txt",
    "sed -n 's/a/b/w /x' notes.txt",
    "sed -n 's/a/b/e' notes.txt",
    "sed -n '1r /etc/passwd' notes.txt",
    "sed -n 'R /etc/passwd' notes.txt",
    "sed -i -n 'p' notes.txt",
    "sed 'p' notes.txt",
    'sed -n -f script.sed notes.txt',
    // files outside the project, through links, not regular
    'cat ../outside.txt',
    'cat link-to-outside',
    'cat dir-to-outside/outside.txt',
    'ls dir-to-outside',
    'head /etc/passwd',
    'tail -f notes.txt',
    'cat fifo',
    'cat /dev/zero',
    'cat missing.txt',
    'cat -',
    'wc --files0-from=/etc/passwd',
    // the shell around the commands
    'ls; rm -rf x',
    'ls && touch x',
    'ls | sh',
    'grep -r x | sh',
    'ls $(rm x)',
    'ls `rm x`',
    'cat <(rm x)',
    'ls > out',
    'cat notes.txt 2>/dev/null',
    'cat < notes.txt',
    'cat <<< hi',
    'FOO=1 ls',
    'ls $HOME',
    'ls "$HOME"',
    'cat ~/.ssh/id_rsa',
    'cat *',
    'cat ../*',
    'cat {notes.txt,../outside.txt}',
    'ls &',
    'ls |& wc',
    '(ls)',
    '{ ls; }',
    '! ls',
    'ls && ./ls',
    './ls',
    '/bin/ls',
    'command ls',
    'echo hi',
    '',
    '# just a comment',
  ])('%s', async (command) => {
    expect(await safe(command)).toBeNull();
    const decision = await gate(command);
    expect(decision).not.toMatchObject({ knownSafe: expect.anything() });
    if (decision.action === 'allow') throw new Error(`${command} ran without asking`);
  });

  test('a PATH entry inside the project or a relative one makes no command known safe', async () => {
    const saved = process.env.PATH;
    try {
      for (const entry of [path.join(project, 'bin'), 'bin', '']) {
        process.env.PATH = `${entry}${path.delimiter}${saved}`;
        expect(await safe('ls'), JSON.stringify(entry)).toBeNull();
      }
    } finally {
      process.env.PATH = saved;
    }
  });

  test('git is not known safe where the sandbox is off, nor in a folder below a repository', async () => {
    const saved = process.env.LOOM_SANDBOX;
    process.env.LOOM_SANDBOX = 'off';
    try {
      expect(await safe('git status')).toBeNull();
    } finally {
      if (saved === undefined) delete process.env.LOOM_SANDBOX;
      else process.env.LOOM_SANDBOX = saved;
    }
    expect(await knownSafeCommands('git status', path.join(project, 'src'))).toBeNull();
  });

  test('the denylist and the always-ask list still come first', async () => {
    expect(await gate('ls; sudo ls')).toMatchObject({ action: 'deny' });
    expect(await gate('ls && git push --force')).toMatchObject({ action: 'ask', label: expect.stringMatching(/always asked/) });
  });
});

describe('sed scripts that only print', () => {
  test.each([
    'p',
    '1p',
    '1,5p',
    '$p',
    '/re/p',
    '/a\\/b/Ip',
    '\\%x%p',
    '2~3p',
    '/a/,+2p',
    '1!p',
    '/x/{p;q}',
    's/a/b/gp',
    's|a|b|2',
    'y/ab/cd/;p',
    '#n\np',
    '1q5',
    '=',
  ])('%s', (script) => expect(isPrintOnlySedScript(script)).toBe(true));
  test.each([
    'w /x',
    '1W /x',
    '1e id',
    'e',
    'r /etc/passwd',
    'R x',
    's/a/b/w /x',
    's/a/b/gw x',
    's/a/b/e',
    's/a/b',
    '1',
    '{p',
    'p}',
    'a text',
    'i\\',
    'c x',
    'b end',
    ':a',
    'v',
    's/a\n/b/',
    'p x',
  ])('%s is not', (script) => expect(isPrintOnlySedScript(script)).toBe(false));
});
