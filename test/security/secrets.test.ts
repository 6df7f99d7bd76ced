import { describe, expect, test } from 'vitest';
import { REDACTED, redactSecrets, scrubbedEnv, secretEnvNames } from '../../src/core/security/secrets';

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
    OPENAI_API_KEY: 'sk-x', GITHUB_TOKEN: 'ghp_x', DB_PASSWORD: 'p', AWS_SECRET_ACCESS_KEY: 's',
    SSH_AUTH_SOCK: '/tmp/agent', EMPTY_TOKEN: '', PATH: '/usr/bin', HOME: '/home/u', LANG: 'C',
    GPG_KEY: 'k', KEYBOARD_LAYOUT: 'us', MONKEY: 'banana', PATTERN: 'x', DATABASE_URL: 'postgres://app:pw-value@db/x',
    SOME_VALUE: 'sk-abcdefghijklmnopqrstuvwxyz',
  };

  test('secretEnvNames lists names only, sorted, skipping empty values', () => {
    expect(secretEnvNames(env)).toEqual([
      'AWS_SECRET_ACCESS_KEY', 'DATABASE_URL', 'DB_PASSWORD', 'GITHUB_TOKEN', 'GPG_KEY', 'OPENAI_API_KEY', 'SOME_VALUE', 'SSH_AUTH_SOCK',
    ]);
  });

  test('scrubbedEnv keeps everything else and never the secrets', () => {
    const scrubbed = scrubbedEnv(env);
    expect(scrubbed).toMatchObject({ PATH: '/usr/bin', HOME: '/home/u', LANG: 'C', KEYBOARD_LAYOUT: 'us', MONKEY: 'banana', PATTERN: 'x' });
    for (const name of secretEnvNames(env)) expect(scrubbed).not.toHaveProperty(name);
    expect(env.OPENAI_API_KEY).toBe('sk-x'); // the input is not changed
  });
});
