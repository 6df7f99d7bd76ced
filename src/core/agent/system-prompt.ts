/**
 * Loom's system message, built for the folder and tools of each open (new, resumed or
 * imported session alike) and put first in the working context; the store keeps earlier
 * ones in the transcript only (SessionStore.setProject), so no other prompt is ever sent.
 */
import type { AgentDefinition } from '../agents/definition';
import { offeredTools } from '../agents/narrow';
import { UNTRUSTED_CONTENT_POLICY } from '../security/untrusted';
import type { Tool } from '../tools/tool';
import { instructionsSection, type ProjectInstructions } from './project-instructions';

const ROLE =
  "You are Loom, an AI agent that works inside one project folder on the user's machine. " +
  'You read, search, edit and run things there with the tools you are given, and you keep ' +
  'the user informed in short, plain sentences.';

const TOOL_GUIDANCE = [
  'Using tools:',
  '- Look before you change: read a file before editing it, search before guessing paths.',
  '- Paths are relative to the project folder; nothing outside it can be read or written.',
  '- edit_file replaces the first occurrence of old_string: quote enough to make it unique.',
  '- run_bash runs one shell command with a time limit; prefer short, non-interactive commands.',
  '- A tool result that starts with "Error" or "Denied" tells you what went wrong: adapt, do not repeat the same call.',
  '- When the user denies an action, do not try to reach the same effect another way; ask or stop.',
  "- Use ask_question only when you cannot proceed without the user's answer.",
].join('\n');

const PLANNING_GUIDANCE = [
  'Planning:',
  "- For work with several steps, write a short plan with todo_append and keep each item's status current with todo_update.",
  '- Keep notes worth remembering during this session in the scratchpad (write_scratchpad).',
  '- When an item has failed repeatedly, stop retrying and tell the user what blocks you.',
  '- Finish with a brief summary of what you changed and how you verified it.',
].join('\n');

/** `agent`: the session's agent, whose tools are listed and whose prompt comes last (docs/DESIGN.md#agents). */
export function buildSystemPrompt(opts: {
  projectDir: string;
  tools: readonly Tool[];
  instructions?: ProjectInstructions | null;
  agent?: AgentDefinition;
}): string {
  const toolNames = (opts.agent ? offeredTools(opts.agent, opts.tools) : opts.tools).map((tool) => tool.name).join(', ') || '(none)';
  return [
    ROLE,
    `The project folder is: ${opts.projectDir}`,
    `Tools available in this session: ${toolNames}.`,
    TOOL_GUIDANCE,
    PLANNING_GUIDANCE,
    UNTRUSTED_CONTENT_POLICY,
    ...(opts.instructions ? [instructionsSection(opts.instructions)] : []),
    ...(opts.agent?.prompt ? [`You are working as the ${opts.agent.name} agent:\n${opts.agent.prompt}`] : []),
  ].join('\n\n');
}
