import { describe, expect, it } from 'vitest';
import { terminalSafe } from '../../src/cli/terminal-safe';

describe('terminalSafe', () => {
  it('shows ESC, the other C0 controls, DEL and the C1 controls as \\u escapes', () => {
    expect(terminalSafe('\x1b]52;c;aGk=\x07')).toBe('\\u001b]52;c;aGk=\\u0007');
    expect(terminalSafe('a\rb\x00c\x7fd\x9b2Je\x85')).toBe('a\\u000db\\u0000c\\u007fd\\u009b2Je\\u0085');
  });

  it('keeps newlines, tabs and printable Unicode as they are', () => {
    const text = 'line one\n\tindented — café ✓ 😀 \u00a0';
    expect(terminalSafe(text)).toBe(text);
  });

  it('is per character: a sequence split between chunks comes out the same as whole', () => {
    const whole = 'x\x1b[2J\x1b]0;owned\x07y';
    const split = ['x\x1b', '[2J', '\x1b]0;ow', 'ned\x07', 'y'].map(terminalSafe).join('');
    expect(split).toBe(terminalSafe(whole));
    expect(split).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
  });

  it("keeps JSON valid and equal: the escape is JSON's own", () => {
    const value = { title: 'a\x1b[31mred\x9b\x7f' };
    const shown = terminalSafe(JSON.stringify(value));
    expect(shown).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(JSON.parse(shown)).toEqual(value);
  });
});
