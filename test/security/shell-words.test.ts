import { describe, expect, test } from 'vitest';
import { decodeAnsiC, escapeAll, expandBraces, MAX_BRACE_WORDS, removeEscapes, TooManyWords } from '../../src/core/security/shell-words';

describe('decodeAnsiC', () => {
  test.each([
    ['\\x72\\x6d', 'rm'],
    ['\\162\\155', 'rm'],
    ['\\u0072m', 'rm'],
    ['a\\tb\\nc', 'a\tb\nc'],
    ["it\\'s", "it's"],
    ['\\\\', '\\'],
    ['\\q', '\\q'],
  ])('%s', (body, value) => {
    expect(decodeAnsiC(body)).toBe(value);
  });
});

describe('expandBraces', () => {
  const expand = (word: string) => expandBraces(word).map(removeEscapes);

  test('lists, nesting, prefixes and suffixes, in bash order', () => {
    expect(expand('{rm,-rf,/}')).toEqual(['rm', '-rf', '/']);
    expect(expand('/{usr,etc}/x')).toEqual(['/usr/x', '/etc/x']);
    expect(expand('a{b,c{d,e}}f')).toEqual(['abf', 'acdf', 'acef']);
    expect(expand('{a,b}{1,2}')).toEqual(['a1', 'a2', 'b1', 'b2']);
  });

  test('sequences, forwards, backwards and with a step', () => {
    expect(expand('x{1..3}')).toEqual(['x1', 'x2', 'x3']);
    expect(expand('{c..a}')).toEqual(['c', 'b', 'a']);
    expect(expand('{0..10..5}')).toEqual(['0', '5', '10']);
  });

  test('what bash leaves alone stays as written', () => {
    expect(expand('{}')).toEqual(['{}']);
    expect(expand('{a}')).toEqual(['{a}']);
    expect(expand('\\{a,b}')).toEqual(['{a,b}']);
    expect(expand(`x${escapeAll('{a,b}')}`)).toEqual(['x{a,b}']); // quoted in the command line
  });

  test('an expansion past the limit is refused, not truncated', () => {
    expect(() => expandBraces('{a,b}'.repeat(9))).toThrow(TooManyWords);
    expect(() => expandBraces(`{1..${MAX_BRACE_WORDS * 4}}`)).toThrow(TooManyWords);
  });
});
