import { describe, expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { keywordScanner } from '../../src/core/security/keyword-scanner';
import { REDACTED, redactSecrets, secretEnvNames } from '../../src/core/security/secrets';
import { toolEnv, withheldSecretEnvNames } from '../../src/core/security/tool-env';
import { fakeSecrets, secretPieces } from '../support/fake-secrets';

describe('redactSecrets', () => {
  test.each([
    ['OpenAI key', 'key sk-proj-abcdefghijklmnopqrstuvwxyz0123 here', 'sk-proj-abcdefghijklmnopqrstuvwxyz0123'],
    ['Anthropic key', 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz', 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz'],
    ['GitHub token', 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'],
    ['GitHub PAT', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789', 'github_pat_11ABCDEFG0123456789'],
    ['Slack token', 'xoxb-1234567890-abcdefghij', 'xoxb-1234567890-abcdefghij'],
    ['AWS key id', 'AKIAIOSFODNN7EXAMPLE', 'AKIAIOSFODNN7EXAMPLE'],
    ['Google key', 'AIzaSyA-1234567890abcdefghijklmnopqrstu', 'AIzaSyA-1234567890abcdefghijklmnopqrstu'],
    ['JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'eyJhbGciOiJIUzI1NiJ9'],
    ['Bearer header', 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456', 'abcdefghijklmnopqrstuvwxyz123456'],
    ['private key', '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----', 'MIIEow'],
    ['assignment', 'DB_PASSWORD=hunter2hunter2', 'hunter2hunter2'],
    ['JSON field', '{"api_key": "0123456789abcdef"}', '0123456789abcdef'],
    ['URL credentials', 'postgres://app:s3cretPassw0rd@db.internal:5432/app', 's3cretPassw0rd'],
  ])('%s', (_what, text, secret) => {
    const out = redactSecrets(text);
    expect(out).not.toContain(secret);
    expect(out).toContain(REDACTED);
  });

  test('keeps the names around a redacted value and leaves ordinary text alone', () => {
    expect(redactSecrets('Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redactSecrets('api_key=abcdefgh12345678')).toBe(`api_key=${REDACTED}`);
    expect(redactSecrets('git clone https://bot:hunter2@git.example.com/x.git')).toBe(`git clone https://bot:${REDACTED}@git.example.com/x.git`);
    const plain = 'The token count is 512; see src/auth/token.ts and skip-list.';
    expect(redactSecrets(plain)).toBe(plain);
  });
});

describe('secrets inside JSON inside JSON', () => {
  test('a tool call whose arguments hold an escaped "api_key": "…" is redacted, the JSON stays valid', () => {
    const args = JSON.stringify({ path: 'config.json', content: JSON.stringify({ api_key: 'abcdefgh12345678' }) });
    const line = JSON.stringify({ tool_calls: [{ function: { name: 'write_file', arguments: args } }] });
    const out = redactSecrets(line);
    expect(out).not.toContain('abcdefgh12345678');
    expect(out).toContain(REDACTED);
    expect(() => JSON.parse(JSON.parse(JSON.parse(out).tool_calls[0].function.arguments).content)).not.toThrow();
  });
});

describe('secret environment variables', () => {
  const env = {
    OPENAI_API_KEY: 'sk-x',
    GITHUB_TOKEN: 'ghp_x',
    DB_PASSWORD: 'p',
    AWS_SECRET_ACCESS_KEY: 's',
    SSH_AUTH_SOCK: '/tmp/agent',
    EMPTY_TOKEN: '',
    PATH: '/usr/bin',
    HOME: '/home/u',
    LANG: 'C',
    GPG_KEY: 'k',
    KEYBOARD_LAYOUT: 'us',
    MONKEY: 'banana',
    PATTERN: 'x',
    DATABASE_URL: 'postgres://app:pw-value@db/x',
    SOME_VALUE: 'sk-abcdefghijklmnopqrstuvwxyz',
  };

  test('secretEnvNames lists names only, sorted, skipping empty values', () => {
    expect(secretEnvNames(env)).toEqual([
      'AWS_SECRET_ACCESS_KEY',
      'DATABASE_URL',
      'DB_PASSWORD',
      'GITHUB_TOKEN',
      'GPG_KEY',
      'OPENAI_API_KEY',
      'SOME_VALUE',
      'SSH_AUTH_SOCK',
    ]);
  });

  test("names cookies, MySQL passwords, DSNs and Stripe keys by name, not the shell's PWD", () => {
    expect(secretEnvNames({ COOKIE: 'a=b', MYSQL_PWD: 'x', SENTRY_DSN: 'y', STRIPE_SK: 'z', PWD: '/home/u', OLDPWD: '/tmp' })).toEqual([
      'COOKIE',
      'MYSQL_PWD',
      'SENTRY_DSN',
      'STRIPE_SK',
    ]);
  });
});

describe('toolEnv: the allowlist tools get', () => {
  const env = {
    PATH: '/usr/bin',
    HOME: '/home/u',
    LANG: 'C.UTF-8',
    LC_ALL: 'C',
    LC_TIME: 'en_GB',
    TERM: 'xterm',
    TZ: 'UTC',
    USER: 'u',
    SHELL: '/bin/bash',
    TMPDIR: '/tmp',
    FOO: 'bar',
    LC_SECRET_TOKEN: 'smuggled',
    OPENAI_API_KEY: 'sk-x',
    EDITOR: 'vim',
  };

  test('keeps the base variables and the locale categories, nothing else', () => {
    expect(toolEnv(env)).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/u',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      LC_TIME: 'en_GB',
      TERM: 'xterm',
      TZ: 'UTC',
      USER: 'u',
      SHELL: '/bin/bash',
      TMPDIR: '/tmp',
    });
  });

  test('adds exactly the passed names (unset ones are simply absent)', () => {
    const passed = toolEnv(env, ['FOO', 'OPENAI_API_KEY', 'NOT_SET']);
    expect(passed).toMatchObject({ FOO: 'bar', OPENAI_API_KEY: 'sk-x' });
    expect(passed).not.toHaveProperty('EDITOR');
    expect(passed).not.toHaveProperty('NOT_SET');
    expect(env.FOO).toBe('bar'); // the input is not changed
  });

  test('the notice names the secret-looking variables withheld, not the ones passed', () => {
    expect(withheldSecretEnvNames(env)).toEqual(['LC_SECRET_TOKEN', 'OPENAI_API_KEY']);
    expect(withheldSecretEnvNames(env, ['OPENAI_API_KEY'])).toEqual(['LC_SECRET_TOKEN']);
  });
});

describe('the rule set', () => {
  test.each(fakeSecrets().map((f) => [f.kind, f] as const))('redacts a %s', (_kind, fake) => {
    const out = redactSecrets(`before ${fake.text} after`);
    for (const piece of secretPieces(fake.secret)) expect(out).not.toContain(piece);
    expect(out).toMatch(/^before .*after$/s);
  });

  test.each([1, 2])('redacts every format at the start of an escaped line, JSON %i level(s) deep', (depth) => {
    const fakes = fakeSecrets();
    let encoded = fakes.map((f) => f.text).join('\n');
    for (let i = 0; i < depth; i++) encoded = JSON.stringify({ content: encoded });
    const out = redactSecrets(encoded);
    const leaked = fakes.filter((f) => secretPieces(f.secret).some((piece) => out.includes(piece) || out.includes(JSON.stringify(piece).slice(1, -1))));
    expect(leaked.map((f) => f.kind)).toEqual([]);
    let decoded: unknown = out;
    for (let i = 0; i < depth; i++) decoded = (JSON.parse(decoded as string) as { content: string }).content;
    expect(decoded).toContain(REDACTED);
  });

  test('the generated module is what the installed secretlint preset gives', async () => {
    const child = spawn(process.execPath, ['scripts/generate-secret-rules.mjs', '--check'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(output).toContain('is up to date');
    expect(code).toBe(0);
  });
});

describe('keywordScanner', () => {
  test('finds every word, ignoring case, overlapping ones too, and nothing else', () => {
    const scan = keywordScanner(['npm_', '_pwd', 'sk', 'sk-ant-', 'token']);
    expect(scan('export NPM_PWD=x').sort()).toEqual(['_pwd', 'npm_']);
    expect(scan('an sk-ant- key and a TOKEN').sort()).toEqual(['sk-ant-', 'token']);
    expect(scan('plain words only')).toEqual([]);
  });
});
