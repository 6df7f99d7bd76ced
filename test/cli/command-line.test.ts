/** The built `loom` command's handling of its command line: help, bad flags, exit codes. */
import { writeFileSync } from 'node:fs';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildLoom, expectOneErrorLine, makeTempDir, removeDir, runLoom } from './run-loom';

let dir: string;

beforeAll(buildLoom, 120_000);
beforeEach(() => {
  dir = makeTempDir();
});
afterEach(() => removeDir(dir));

describe('loom --help', () => {
  it('lists every flag of docs/DESIGN.md#command-line with a description', async () => {
    const run = await runLoom(['--help']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const flags = [
      '--data-dir',
      '--base-url',
      '--model',
      '--api-key',
      '--max-context-tokens',
      '--model-window',
      '--mode',
      '--tools',
      '--tool-timeout',
      '--llm-timeout',
      '--llm-idle-timeout',
      '--max-turns',
      '--max-tool-calls',
      '--max-cost-usd',
      '--approve-plan',
      '--no-project-instructions',
      '--log-dir',
      '-p, --prompt',
      '--resume',
      '--continue',
      '--list-sessions',
      '--include-archived',
      '--json',
      '--search',
      '--info',
      '--rename',
      '--fork',
      '--pin',
      '--unpin',
      '--archive',
      '--unarchive',
      '--export',
      '--format',
      '--import',
      '--delete',
      '--yes',
    ];
    for (const flag of flags) expect(run.stdout).toMatch(new RegExp(`^\\s+${flag}\\b.*\\s{2,}\\S`, 'm'));
  });
});

describe('bad command lines', () => {
  it.each([
    [['--no-such-flag'], "unknown option '--no-such-flag'"],
    [['--max-turns', 'many', '--list-sessions'], "--max-turns must be a positive whole number, got 'many'."],
    [['--mode', 'yolo'], "argument 'yolo' is invalid"],
    [['--export', 'abc', '--format', 'xml'], "argument 'xml' is invalid"],
    [['--info', 'a', '--fork', 'b'], 'cannot be used together'],
    [['--yes'], '--yes only applies to --delete or --purge.'],
    [['--list-sessions', 'extra'], 'too many arguments'],
    [['--tools', 'no_such_tool', '-p', 'hi'], 'no_such_tool'],
  ])('%j: one line, exit 2, nothing created', async (args, expected) => {
    const run = await runLoom([...args, '--data-dir', dir]);
    expect(run.code).toBe(2);
    expect(expectOneErrorLine(run)).toContain(expected);
    expect(run.stdout).toBe('');
  });

  it('reports a --data-dir that is a file in one line, exit 1', async () => {
    writeFileSync(`${dir}/plain-file`, 'x');
    const run = await runLoom(['--list-sessions', '--data-dir', `${dir}/plain-file`]);
    expect(run.code).toBe(1);
    expect(expectOneErrorLine(run)).toContain('plain-file');
  });

  it('reports a database that is not Loom’s in one line, exit 1', async () => {
    writeFileSync(`${dir}/loom.db`, 'this is not a database, just some text that is long enough to be read');
    const run = await runLoom(['--list-sessions', '--data-dir', dir]);
    expect(run.code).toBe(1);
    expectOneErrorLine(run);
  });
});
