/**
 * The agents Loom comes with. Their names are reserved: a file naming one is refused, so
 * that `plan` is read-only whatever folder the session works in.
 */
import type { AgentDefinition } from './definition';

const PLAN_PROMPT = [
  'You are in plan mode: you think and read, you do not change anything.',
  'Read and search the project, then write a clear plan (todo_append, write_scratchpad) and say what you would change and why.',
  'Writing or editing files and running commands are refused in this mode; when the plan is ready, tell the user to switch to the build agent.',
].join('\n');

const EXPLORE_PROMPT = [
  'You explore a codebase to answer a question: find the files, read what matters, and report what you found with paths and line references.',
  'You cannot change files or run commands. Be brief: search first, read only what the question needs.',
].join('\n');

export const BUILT_IN_AGENTS: readonly AgentDefinition[] = [
  {
    name: 'build',
    description: 'Does the work: reads, edits and runs commands as the permission mode allows.',
    prompt: '',
    scope: 'built-in',
    format: 'built-in',
  },
  {
    name: 'plan',
    description: 'Read-only: thinks and plans; every write, edit and command is refused.',
    prompt: PLAN_PROMPT,
    access: 'readOnly',
    scope: 'built-in',
    format: 'built-in',
  },
  {
    name: 'explore',
    description: 'Read-only and cheap: searches and reads a codebase to answer a question.',
    prompt: EXPLORE_PROMPT,
    tools: ['read_file', 'glob_files', 'grep'],
    access: 'readOnly',
    maxTurns: 12,
    scope: 'built-in',
    format: 'built-in',
  },
];

/** The agent a session has when none was chosen: today's. */
export const DEFAULT_AGENT = 'build';
