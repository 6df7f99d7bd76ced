/** The front-matter parser: the YAML shapes agent files use, and a clear line for anything else. */
import { describe, expect, it } from 'vitest';
import { splitFrontMatter } from '../../src/core/agents/front-matter';

const parse = (head: string) => splitFrontMatter(`---\n${head}\n---\nbody`).data;

describe('agent front matter', () => {
  it('reads scalars, quoted strings, both list forms and nested maps', () => {
    const data = parse(
      [
        'name: reviewer # a comment',
        'description: "Reviews: code, carefully"',
        "quote: 'it''s # not a comment'",
        'tools: [read_file, "grep"]',
        'more:',
        '  - glob_files',
        '  - read_file',
        'bare:',
        '- one',
        'maxTurns: 12',
        'on: true',
        'tools2:',
        '  write: false',
        '  bash:',
        '    "git push": ask',
        '    "*": allow',
        'permissions:',
        '  - action: edit',
        '    resource: "*"',
        '    effect: deny',
        'prompt: |',
        '  line one',
        '  # kept',
      ].join('\n'),
    );
    expect(data).toEqual({
      name: 'reviewer',
      description: 'Reviews: code, carefully',
      quote: "it's # not a comment",
      tools: ['read_file', 'grep'],
      more: ['glob_files', 'read_file'],
      bare: ['one'],
      maxTurns: 12,
      on: true,
      tools2: { write: false, bash: { 'git push': 'ask', '*': 'allow' } },
      permissions: [{ action: 'edit', resource: '*', effect: 'deny' }],
      prompt: 'line one\n# kept',
    });
  });

  it('keeps the body and reads a file without front matter as all body', () => {
    expect(splitFrontMatter('---\nname: a\n---\n\nYou review.\n')).toEqual({ data: { name: 'a' }, body: 'You review.' });
    expect(splitFrontMatter('Just a prompt.')).toEqual({ data: {}, body: 'Just a prompt.' });
  });

  it.each([
    ['name: a\nname: b', 'line 3: "name" is given twice'],
    ['tools: {write: false}', 'line 2: "{write: false}" uses YAML that agent files do not need'],
    ['base: &anchor x', 'line 2: "&anchor x" uses YAML'],
    ['description: "unclosed', 'line 2: an unclosed double quote'],
    ['tools: [a, b', 'line 2: a "[" list with no closing "]"'],
    ['just text', 'line 2: expected "key: value", got "just text"'],
    ['\tname: a', 'line 2: a tab in the indentation'],
    ['name: a\n    extra: b', 'line 3: unexpected indentation'],
  ])('refuses %j with one line naming it', (head, message) => {
    expect(() => parse(head)).toThrow(message);
  });

  it('refuses front matter that never closes', () => {
    expect(() => splitFrontMatter('---\nname: a\n')).toThrow('the front matter has no closing "---" line');
  });
});
