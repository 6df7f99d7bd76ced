/**
 * ask_question: the one tool that waits for the user. The answer goes back as plain text:
 * the agent loop fences every tool result anyway, and the user's own answer is the one
 * thing in a tool result the model should act on.
 */
import { z } from 'zod';
import { defineTool } from './tool';

const NO_ANSWER = 'The user did not answer.';

export const askQuestionTool = defineTool({
  name: 'ask_question',
  description: 'Ask the user a question and wait for the answer. Use it when a decision is theirs or you are stuck; ' + 'ask one clear question at a time.',
  effects: { kind: 'interact' },
  schema: z.strictObject({
    question: z.string().trim().min(1).max(2000).describe('The question for the user.'),
  }),
  async run({ question }, ctx) {
    const answer = await ctx.askUser(question);
    if (answer === null || answer.trim() === '') return NO_ANSWER;
    return `The user answered: ${answer}`;
  },
});
