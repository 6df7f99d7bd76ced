/**
 * Tool-call arguments as the model sent them (a JSON string) -> validated arguments, or
 * a short error naming the field and the problem, which the model can act on.
 */
import type { z } from 'zod';
import type { Tool } from './tool';

/**
 * Most characters one call's arguments may have (256 KiB). A bigger call is refused before
 * it is parsed: nothing that large is a sensible single action, and the model is told to
 * split the work. (A reply over the model client's size cap never gets this far.)
 */
export const MAX_TOOL_ARGUMENT_CHARS = 256 * 1024;

function describeIssue(issue: z.core.$ZodIssue): string {
  const field = issue.path.length ? issue.path.join('.') : null;
  if (issue.code === 'unrecognized_keys') {
    return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  }
  return field ? `${field}: ${issue.message}` : issue.message;
}

function allowedFields(tool: Tool): string {
  const shape = (tool.schema as unknown as { shape?: Record<string, unknown> }).shape ?? tool.parameters?.properties;
  const names = typeof shape === 'object' && shape !== null ? Object.keys(shape) : [];
  return names.length ? `Allowed fields: ${names.join(', ')}.` : 'This tool takes no arguments: send {}.';
}

/**
 * Parses a tool call's JSON arguments against the tool's schema. An empty string counts
 * as {} (some servers send it for tools without parameters).
 */
export function parseToolArguments(tool: Tool, raw: string): { ok: true; args: unknown } | { ok: false; error: string } {
  if (raw.length > MAX_TOOL_ARGUMENT_CHARS) {
    const size = `${raw.length.toLocaleString('en-US')} characters, over the limit of ${MAX_TOOL_ARGUMENT_CHARS.toLocaleString('en-US')}`;
    return { ok: false, error: `Refused: the arguments of this ${tool.name} call are ${size}; it was not run. Split the work into smaller calls.` };
  }
  let value: unknown;
  try {
    value = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (err) {
    return {
      ok: false,
      error: `Invalid arguments for ${tool.name}: not valid JSON (${(err as Error).message}). Send one JSON object. ${allowedFields(tool)}`,
    };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: `Invalid arguments for ${tool.name}: expected a JSON object. ${allowedFields(tool)}` };
  }
  const parsed = tool.schema.safeParse(value);
  if (parsed.success) return { ok: true, args: parsed.data };
  const problems = parsed.error.issues.map(describeIssue).join('; ');
  const hint = parsed.error.issues.some((i) => i.code === 'unrecognized_keys') ? ` ${allowedFields(tool)}` : '';
  return { ok: false, error: `Invalid arguments for ${tool.name}: ${problems}.${hint}` };
}
