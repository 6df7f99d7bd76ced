import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/core/config';
import { UsageError } from '../../src/cli/option-parser';
import { parseCommandLine, type ParseOutcome } from '../../src/cli/options';

const ENV = { LOOM_HOME: '/tmp/loom-home' };

function run(args: string[], env: NodeJS.ProcessEnv = ENV): Extract<ParseOutcome, { kind: 'run' }> {
  const outcome = parseCommandLine(args, env);
  if (outcome.kind !== 'run') throw new Error('expected a command to run');
  return outcome;
}

function usageError(args: string[], env: NodeJS.ProcessEnv = ENV): string {
  try {
    parseCommandLine(args, env);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    const message = (err as Error).message;
    expect(message).not.toContain('\n'.repeat(2));
    return message;
  }
  throw new Error(`expected a usage error for ${args.join(' ')}`);
}

describe('configuration', () => {
  it('uses the defaults of docs/DESIGN.md#command-line with no flags and no environment', () => {
    const { config, action } = run([]);
    expect(action).toEqual({ kind: 'chat' });
    expect(config).toEqual({
      dataDir: path.resolve('/tmp/loom-home'),
      baseUrl: DEFAULTS.baseUrl,
      model: DEFAULTS.model,
      apiKey: '',
      maxContextTokens: 24000,
      mode: 'default',
      toolTimeoutSec: 120,
      llmTimeoutSec: 600,
      llmIdleTimeoutSec: 120,
      maxTurns: 40,
      maxToolCalls: 200,
      maxCostUsd: 5,
      approvePlan: false,
    });
  });

  it('takes every flag', () => {
    const { config } = run([
      '--data-dir',
      'rel/data',
      '--base-url',
      'https://api.example.test/v1/',
      '--model',
      'm1',
      '--api-key',
      'k1',
      '--max-context-tokens',
      '8000',
      '--model-window',
      '32768',
      '--mode',
      'acceptEdits',
      '--tools',
      'read_file, grep,read_file',
      '--tool-timeout',
      '30',
      '--llm-timeout',
      '60',
      '--llm-idle-timeout',
      '20',
      '--max-turns',
      '3',
      '--max-tool-calls',
      '9',
      '--max-cost-usd',
      '0.25',
      '--approve-plan',
      '--log-dir',
      'logs',
    ]);
    expect(config).toEqual({
      dataDir: path.resolve('rel/data'),
      baseUrl: 'https://api.example.test/v1',
      model: 'm1',
      apiKey: 'k1',
      maxContextTokens: 8000,
      modelWindow: 32768,
      mode: 'acceptEdits',
      tools: ['read_file', 'grep'],
      toolTimeoutSec: 30,
      llmTimeoutSec: 60,
      llmIdleTimeoutSec: 20,
      maxTurns: 3,
      maxToolCalls: 9,
      maxCostUsd: 0.25,
      approvePlan: true,
      logDir: path.resolve('logs'),
    });
  });

  it('reads the environment, flags first', () => {
    const env = { LOOM_HOME: '/h', LOOM_BASE_URL: 'http://127.0.0.1:9/v1', LOOM_MODEL: 'envmodel', OPENAI_API_KEY: 'openai-key' };
    expect(run([], env).config).toMatchObject({ baseUrl: 'http://127.0.0.1:9/v1', model: 'envmodel', apiKey: 'openai-key' });
    expect(run([], { ...env, LOOM_API_KEY: 'loom-key' }).config.apiKey).toBe('loom-key');
    expect(run(['--model', 'flag', '--api-key', 'flagkey'], { ...env, LOOM_API_KEY: 'loom-key' }).config).toMatchObject({
      model: 'flag',
      apiKey: 'flagkey',
    });
    expect(run(['--data-dir', '/d'], env).config.dataDir).toBe(path.resolve('/d'));
  });

  it('offers no tools for an empty --tools', () => {
    expect(run(['--tools', '']).config.tools).toEqual([]);
  });

  it('collects every --pass-env name once; without one, tools get only the base variables', () => {
    expect(run(['--pass-env', 'GITHUB_TOKEN', '--pass-env', 'FOO', '--pass-env', 'GITHUB_TOKEN']).config.passEnv).toEqual(['GITHUB_TOKEN', 'FOO']);
    expect(run([]).config.passEnv).toBeUndefined();
  });
});

describe('actions', () => {
  it('maps each lifecycle flag to its action', () => {
    expect(run(['--list-sessions', '--include-archived', '--json']).action).toEqual({
      kind: 'list',
      includeArchived: true,
      includeChildren: false,
      json: true,
    });
    expect(run(['--search', 'parser bug']).action).toEqual({ kind: 'search', query: 'parser bug', includeArchived: false, json: false });
    expect(run(['--info', 'ab12', '--json']).action).toEqual({ kind: 'info', id: 'ab12', json: true });
    expect(run(['--rename', 'ab12', 'New title']).action).toEqual({ kind: 'rename', id: 'ab12', title: 'New title' });
    expect(run(['--rename', 'ab12', 'two', 'words']).action).toEqual({ kind: 'rename', id: 'ab12', title: 'two words' });
    expect(run(['--fork', 'ab12']).action).toEqual({ kind: 'fork', id: 'ab12' });
    expect(run(['--fork', 'ab12', '--at', '7']).action).toEqual({ kind: 'fork', id: 'ab12', at: 7 });
    expect(run(['--archive', 'ab12']).action).toEqual({ kind: 'archive', id: 'ab12', archived: true });
    expect(run(['--unarchive', 'ab12']).action).toEqual({ kind: 'archive', id: 'ab12', archived: false });
    expect(run(['--pin', 'ab12']).action).toEqual({ kind: 'pin', id: 'ab12', pinned: true });
    expect(run(['--unpin', 'ab12']).action).toEqual({ kind: 'pin', id: 'ab12', pinned: false });
    expect(run(['--export', 'ab12']).action).toEqual({ kind: 'export', id: 'ab12', format: 'json' });
    expect(run(['--export', 'ab12', '--format', 'html']).action).toEqual({ kind: 'export', id: 'ab12', format: 'html' });
    expect(run(['--import', 'f.json']).action).toEqual({ kind: 'import', file: 'f.json' });
    expect(run(['--delete', 'ab12']).action).toEqual({ kind: 'delete', id: 'ab12', yes: false });
    expect(run(['--delete', 'ab12', '--yes']).action).toEqual({ kind: 'delete', id: 'ab12', yes: true });
  });

  it('maps the chat modes', () => {
    expect(run(['-p', '-starts with a dash']).action).toEqual({ kind: 'chat', prompt: '-starts with a dash' });
    expect(run(['--resume', 'ab12', '-p', 'go on']).action).toEqual({ kind: 'chat', resume: 'ab12', prompt: 'go on' });
    expect(run(['--continue']).action).toEqual({ kind: 'chat', continueLast: true });
  });

  it('shows help and version without running anything', () => {
    expect(parseCommandLine(['--version'], ENV)).toEqual({ kind: 'exit', code: 0 });
  });
});

describe('usage errors', () => {
  it.each([
    [['--max-turns', 'abc'], "--max-turns must be a positive whole number, got 'abc'."],
    [['--max-turns', '0'], '--max-turns must be a positive whole number'],
    [['--max-tool-calls', '2.5'], '--max-tool-calls must be a positive whole number'],
    [['--max-context-tokens', '-5'], '--max-context-tokens must be a positive whole number'],
    [['--model-window', 'big'], "--model-window must be a positive whole number, got 'big'."],
    [['--model-window', '512'], "--model-window must be at least 1000 tokens, got '512'."],
    [['--tool-timeout', '1e3'], '--tool-timeout must be a positive whole number'],
    [['--llm-timeout', ''], '--llm-timeout must be a positive whole number'],
    [['--llm-idle-timeout', '0'], '--llm-idle-timeout must be a positive whole number'],
    [['--max-cost-usd', '-1'], '--max-cost-usd must be an amount of US dollars of 0 or more'],
    [['--max-cost-usd', 'lots'], '--max-cost-usd must be an amount'],
    [['--mode', 'yolo'], "option '--mode <mode>' argument 'yolo' is invalid. Allowed choices are default, acceptEdits, dangerouslySkipPermissions."],
    [['--export', 'x', '--format', 'xml'], "argument 'xml' is invalid"],
    [['--base-url', 'localhost:11434'], '--base-url must be an http(s) URL'],
    [['--tools', 'read file'], "--tools takes comma-separated tool names, got 'read file'."],
    [['--pass-env', 'A=B'], "--pass-env takes an environment variable name (letters, digits and _), got 'A=B'."],
    [['--pass-env', 'FOO', '--pass-env', '9LIVES'], "got '9LIVES'"],
    [['--pass-env'], "option '--pass-env <name>' argument missing"],
    [['--bogus'], "unknown option '--bogus'"],
    [['--list-session'], 'Did you mean --list-sessions?'],
    [['stray'], 'too many arguments'],
    [['--info'], "option '--info <id>' argument missing"],
    [['--info', ' '], '--info needs a session ID.'],
    [['--search', ''], '--search needs a query.'],
    [['--rename', 'ab12'], '--rename needs an ID and a TITLE'],
    [['-p', ''], '-p/--prompt needs a prompt.'],
    [['--data-dir', ''], '--data-dir needs a folder.'],
    [['--info', 'a', '--fork', 'b'], '--info and --fork cannot be used together'],
    [['--list-sessions', '--search', 'q'], '--list-sessions and --search cannot be used together'],
    [['--fork', 'a', '-p', 'hi'], '--fork cannot be combined with -p/--prompt'],
    [['--resume', 'a', '--continue'], '--resume and --continue cannot be used together.'],
    [['--yes'], '--yes only applies to --delete or --purge.'],
    [['--fork', 'a', '--yes'], '--yes only applies to --delete or --purge.'],
    [['--format', 'json'], '--format only applies to --export.'],
    [['--fork', 'a', '--json'], '--json only applies to --list-sessions, --search, --info or --trash.'],
    [['--info', 'a', '--include-archived'], '--include-archived only applies to --list-sessions or --search.'],
  ])('%j → %s', (args, expected) => {
    expect(usageError(args)).toContain(expected);
  });

  it('reports a bad LOOM_BASE_URL by its name', () => {
    expect(usageError([], { LOOM_BASE_URL: 'ftp://x' })).toContain('LOOM_BASE_URL must be an http(s) URL');
  });
});

describe('the parser (commander’s rules, without commander)', () => {
  it('takes a value after =, glued to a short flag, or starting with a dash', () => {
    expect(run(['--info=ab12']).action).toEqual({ kind: 'info', id: 'ab12', json: false });
    expect(run(['-phello']).action).toEqual({ kind: 'chat', prompt: 'hello' });
    expect(run(['--search', '--json']).action).toMatchObject({ kind: 'search', query: '--json', json: false });
  });

  it('gives a list flag the words up to the next option', () => {
    expect(run(['--rename', 'ab12', 'New', 'title', '--data-dir', '/d']).action).toEqual({ kind: 'rename', id: 'ab12', title: 'New title' });
    expect(run(['--import-from', 'codex', '-']).action).toEqual({ kind: 'import-from', source: 'codex', path: '-' });
  });

  it('lets --help win over a mistake beside it, and --version end the parse where it stands', () => {
    expect(parseCommandLine(['--bogus', '--help'], ENV)).toEqual({ kind: 'exit', code: 0 });
    expect(parseCommandLine(['--version', 'stray'], ENV)).toEqual({ kind: 'exit', code: 0 });
    expect(usageError(['--mode', 'yolo', '--version'])).toContain("argument 'yolo' is invalid");
  });

  it.each([
    [['--json=1'], "unknown option '--json=1' (Did you mean --json?)"],
    [['--help-me'], "unknown option '--help-me' (Did you mean --help?)"],
    [['--expor', 'x'], "unknown option '--expor' (Did you mean --export?)"],
    [['--zzzzzz'], "unknown option '--zzzzzz'"],
    [['-x'], "unknown option '-x'"],
    [['--', '--list-sessions'], 'too many arguments. Expected 0 arguments but got 1.'],
    [['--list-sessions', 'a', 'b'], 'too many arguments. Expected 0 arguments but got 2.'],
    [['--rename'], "option '--rename <id> <title...>' argument missing"],
  ])('%j → %s', (args, expected) => {
    expect(usageError(args)).toBe(expected);
  });
});

describe('hub commands', () => {
  it('reads --hub-init, --hub-add-member and --search --hub (URL given, or from LOOM_HUB)', () => {
    expect(run(['--hub-init', 'postgres://owner@127.0.0.1/loom']).action).toMatchObject({ kind: 'hub-init', hub: { host: '127.0.0.1', user: 'owner' } });
    expect(run(['--hub-add-member', 'postgres://owner@127.0.0.1/loom', 'core', 'alice']).action).toMatchObject({
      kind: 'hub-add-member',
      team: 'core',
      member: 'alice',
    });
    expect(run(['--search', 'parser bug', '--hub', 'postgres://alice@127.0.0.1/loom', '--json']).action).toMatchObject({
      kind: 'hub-search',
      query: 'parser bug',
      json: true,
      hub: { user: 'alice' },
    });
    expect(run(['--search', 'parser', '--hub', '--include-archived'], { ...ENV, LOOM_HUB: 'postgres://bob@localhost/loom' }).action).toMatchObject({
      includeArchived: true,
      hub: { user: 'bob' },
    });
    expect(run(['--search', 'parser']).action).toMatchObject({ kind: 'search' });
  });

  it('refuses what the hub commands cannot use, in one line', () => {
    expect(usageError(['--hub-init', 'http://db/loom'])).toContain('The hub URL must look like postgres://');
    expect(usageError(['--hub-init', 'postgres://a:pw@db.example.com/loom?sslmode=disable'])).toContain('not sslmode=disable');
    expect(usageError(['--hub-add-member', 'postgres://o@127.0.0.1/loom', 'core'])).toContain('--hub-add-member takes a hub URL, a TEAM and a ROLE');
    expect(usageError(['--hub-init', 'postgres://o@127.0.0.1/loom', '--list-sessions'])).toContain('cannot be used together');
    expect(usageError(['--search', 'x', '--hub'])).toContain('--hub needs a hub URL');
  });
});
