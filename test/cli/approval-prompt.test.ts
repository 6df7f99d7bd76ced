/** The terminal's approval question: `a` only when a grant is offered, the offer made safe to print. */
import { describe, expect, test } from 'vitest';
import { answerOf, askPrompt, grantsText } from '../../src/cli/approval-prompt';

const toolOffer = { kind: 'tool', tool: 'edit_file' } as const;

describe('answerOf', () => {
  test('y is once, a is for the session when offered, anything else denies', () => {
    expect(answerOf('y', toolOffer)).toBe('once');
    expect(answerOf(' yes ', null)).toBe('once');
    expect(answerOf('a', toolOffer)).toBe('session');
    expect(answerOf('always', toolOffer)).toBe('session');
    expect(answerOf('a', null)).toBe('deny');
    expect(answerOf('n', toolOffer)).toBe('deny');
    expect(answerOf(null, toolOffer)).toBe('deny');
  });
});

describe('askPrompt', () => {
  test('offers a only with a grant, naming it; control characters in a prefix are shown, not sent', () => {
    expect(askPrompt(null)).toBe('Allow this action? [y/n] ');
    expect(askPrompt(toolOffer)).toBe('Allow this action? [y/n/a] (a: allow every edit_file call for the rest of this session) ');
    const prompt = askPrompt({ kind: 'prefix', tool: 'run_bash', prefix: ['echo', 'x\x1b[2K'] });
    expect(prompt).toContain('run_bash commands starting with "echo x\\u001b[2K"');
    expect(prompt).not.toMatch(/\x1b/);
  });
});

describe('grantsText', () => {
  test('numbers the grants for \\revoke, or says there are none', () => {
    expect(grantsText([])).toMatch(/^Nothing is allowed for this session beyond the mode\./);
    expect(
      grantsText([
        { ...toolOffer, id: 'g1' },
        { kind: 'prefix', tool: 'run_bash', prefix: ['npm', 'test'], id: 'g2' },
      ]),
    ).toBe('Allowed for this session (\\revoke N takes one back):\n  1. every edit_file call\n  2. run_bash commands starting with "npm test"');
  });
});
