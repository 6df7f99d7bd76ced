/** The two pure rules behind guarantee 8 (the attacks are in test/adversarial/api-key-scope.test.ts). */
import { describe, expect, it } from 'vitest';
import { keyFor, scopeSavedKey } from '../../src/backend/api-key-scope';

const A = 'http://a.example/v1';
const B = 'http://b.example/v1';

describe('keyFor', () => {
  it('takes the first key given for the URL, skipping keys given for another', () => {
    expect(
      keyFor(B, [
        { key: 'sk-a', url: A },
        { key: 'sk-b', url: B },
      ]),
    ).toBe('sk-b');
    expect(
      keyFor(A, [
        { key: undefined, url: A },
        { key: 'sk-a', url: A },
      ]),
    ).toBe('sk-a');
    expect(keyFor(B, [{ key: 'sk-a', url: A }])).toBe('');
  });

  it('treats an explicit empty key as "none" that later keys do not override', () => {
    expect(
      keyFor(A, [
        { key: '', url: A },
        { key: 'sk-env', url: A },
      ]),
    ).toBe('');
  });

  it('compares URLs exactly: a trailing slash or another port is another server', () => {
    expect(keyFor(`${A}/`, [{ key: 'sk-a', url: A }])).toBe('');
    expect(keyFor('http://a.example:8080/v1', [{ key: 'sk-a', url: A }])).toBe('');
  });
});

describe('scopeSavedKey', () => {
  it('pins a new key to the URL in effect after the update', () => {
    expect(scopeSavedKey({ apiKey: 'sk-b' }, 'sk-b', A, B)).toEqual({ apiKey: 'sk-b', baseUrl: B });
  });

  it('forgets the saved key when the URL changes without a new key', () => {
    expect(scopeSavedKey({ apiKey: 'sk-a', baseUrl: B, model: 'm' }, undefined, A, B)).toEqual({ baseUrl: B, model: 'm' });
  });

  it('keeps it when the URL stays', () => {
    expect(scopeSavedKey({ apiKey: 'sk-a', baseUrl: A }, undefined, A, A)).toEqual({ apiKey: 'sk-a', baseUrl: A });
  });
});
