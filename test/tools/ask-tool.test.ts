import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseToolArguments } from '../../src/core/tools/arguments';
import { askQuestionTool } from '../../src/core/tools/ask-tool';
import { call, makeHarness, type Harness } from './support';

let h: Harness;
beforeEach(() => {
  h = makeHarness();
});
afterEach(() => h.cleanup());

describe('ask_question', () => {
  it('asks the user and returns the answer', async () => {
    h.answers.push('Use port 8080');
    expect(await call(askQuestionTool, { question: 'Which port?' }, h.ctx)).toBe('The user answered: Use port 8080');
    expect(h.questions).toEqual(['Which port?']);
  });

  it('reports no answer (end of input, dismissed, empty) plainly', async () => {
    h.answers.push(null, '   ');
    expect(await call(askQuestionTool, { question: 'Which port?' }, h.ctx)).toBe('The user did not answer.');
    expect(await call(askQuestionTool, { question: 'Which port?' }, h.ctx)).toBe('The user did not answer.');
  });

  it('validates the question', () => {
    expect(parseToolArguments(askQuestionTool, '{"question":""}')).toMatchObject({ ok: false, error: expect.stringContaining('question:') });
    expect(parseToolArguments(askQuestionTool, JSON.stringify({ question: 'x'.repeat(2001) }))).toMatchObject({ ok: false });
  });
});
