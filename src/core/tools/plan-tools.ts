/**
 * Planning tools: a todo list and a scratchpad, kept in the session's plan state through
 * ctx.plan (the caller saves it with the session). A failed item set back to in_progress
 * counts a retry; after MAX_RETRIES the tool refuses and tells the model to escalate.
 */
import { z } from 'zod';
import { TODO_STATUSES, type PlanState, type TodoItem } from '../../shared/types';
import { LoomError } from '../errors';
import { defineTool } from './tool';

export const MAX_RETRIES = 3;
const MAX_TODOS = 200;
const MAX_SCRATCHPAD_CHARS = 100_000;

function formatTodos(todos: TodoItem[]): string {
  if (todos.length === 0) return 'The todo list is empty.';
  return todos.map((t) => `#${t.id} [${t.status}] ${t.text}${t.retries > 0 ? ` (retries: ${t.retries}/${MAX_RETRIES})` : ''}`).join('\n');
}

export const todoAppendTool = defineTool({
  name: 'todo_append',
  description: 'Add an item (status pending) to the todo list of this session. Returns the whole list.',
  effects: { kind: 'plan' },
  schema: z.strictObject({
    text: z.string().trim().min(1).max(2000).describe('What to do.'),
  }),
  async run({ text }, ctx) {
    const plan = ctx.plan.get();
    if (plan.todos.length >= MAX_TODOS) {
      throw new LoomError(`The todo list is full (${MAX_TODOS} items); finish or cancel items first.`);
    }
    const id = plan.todos.reduce((max, t) => Math.max(max, t.id), 0) + 1;
    const todos = [...plan.todos, { id, text, status: 'pending' as const, retries: 0 }];
    ctx.plan.set({ ...plan, todos });
    return `Added #${id}.\n${formatTodos(todos)}`;
  },
});

export const todoListTool = defineTool({
  name: 'todo_list',
  description: "Show the todo list of this session with each item's id and status.",
  effects: { kind: 'read' },
  schema: z.strictObject({}),
  async run(_args, ctx) {
    return formatTodos(ctx.plan.get().todos);
  },
});

/** The updated item, or a LoomError saying why the change is refused. */
function applyStatus(item: TodoItem, status: TodoItem['status']): TodoItem {
  const isRetry = item.status === 'failed' && status === 'in_progress';
  if (!isRetry) return { ...item, status };
  if (item.retries >= MAX_RETRIES) {
    throw new LoomError(
      `#${item.id} has already been retried ${MAX_RETRIES} times and failed again. Stop retrying it: ` +
        'tell the user what failed and ask how to proceed (ask_question).',
    );
  }
  return { ...item, status, retries: item.retries + 1 };
}

export const todoUpdateTool = defineTool({
  name: 'todo_update',
  description:
    'Set the status of a todo item: pending, in_progress, done, cancelled or failed. ' +
    `Setting a failed item back to in_progress counts a retry; after ${MAX_RETRIES} retries, stop and escalate to the user.`,
  effects: { kind: 'plan' },
  schema: z.strictObject({
    id: z.number().int().min(1).max(1_000_000).describe('Item id (#number).'),
    status: z.enum(TODO_STATUSES).describe('New status.'),
  }),
  async run({ id, status }, ctx) {
    const plan = ctx.plan.get();
    const item = plan.todos.find((t) => t.id === id);
    if (!item) {
      const ids = plan.todos.map((t) => `#${t.id}`).join(', ');
      throw new LoomError(`No todo #${id}. ${ids ? `Existing items: ${ids}.` : 'The todo list is empty.'}`);
    }
    const updated = applyStatus(item, status);
    const todos = plan.todos.map((t) => (t.id === id ? updated : t));
    ctx.plan.set({ ...plan, todos });
    const left = MAX_RETRIES - updated.retries;
    const retryNote = updated.retries > item.retries ? ` Retry ${updated.retries} of ${MAX_RETRIES}${left === 0 ? ': the last one allowed' : ''}.` : '';
    return `#${id} is now ${status}.${retryNote}\n${formatTodos(todos)}`;
  },
});

export const readScratchpadTool = defineTool({
  name: 'read_scratchpad',
  description: 'Read the scratchpad of this session (free-form notes and the plan).',
  effects: { kind: 'read' },
  schema: z.strictObject({}),
  async run(_args, ctx) {
    const { scratchpad } = ctx.plan.get();
    return scratchpad ? scratchpad : 'The scratchpad is empty.';
  },
});

export const writeScratchpadTool = defineTool({
  name: 'write_scratchpad',
  description: 'Replace the scratchpad of this session with new content (use it for the plan and working notes).',
  effects: { kind: 'plan' },
  schema: z.strictObject({
    content: z.string().max(MAX_SCRATCHPAD_CHARS).describe('The complete new scratchpad text.'),
  }),
  async run({ content }, ctx) {
    const plan: PlanState = ctx.plan.get();
    ctx.plan.set({ ...plan, scratchpad: content });
    return `Scratchpad saved (${content.length} characters).`;
  },
});

export const PLAN_TOOLS = [todoAppendTool, todoListTool, todoUpdateTool, readScratchpadTool, writeScratchpadTool];
