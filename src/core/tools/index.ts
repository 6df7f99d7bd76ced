/**
 * The tool registry: every tool, the specs offered to the model, and (re-exported) the
 * plumbing around a call: argument parsing and the cap on result size.
 */
import { z } from 'zod';
import type { ToolSpec } from '../model/client';
import { askQuestionTool } from './ask-tool';
import { FS_TOOLS } from './fs-tools';
import { MEMORY_TOOLS } from './memory-tools';
import { PLAN_TOOLS } from './plan-tools';
import { SESSION_TOOLS } from './session-tools';
import { runBashTool } from './shell-tool';
import { runSubagentTool } from './subagent-tool';
import type { Tool } from './tool';
import { webfetchTool } from './webfetch';

export type { Tool } from './tool';
export { parseToolArguments } from './arguments';
export { truncateToolResult } from './result';

export const ALL_TOOLS: Tool[] = [...FS_TOOLS, runBashTool, webfetchTool, ...PLAN_TOOLS, askQuestionTool, ...MEMORY_TOOLS, ...SESSION_TOOLS, runSubagentTool];

/** Each tool's spec, made once: converting its zod schema costs about a millisecond, for every session opened. */
const specs = new WeakMap<Tool, ToolSpec>();

/** OpenAI function specs; `io: 'input'` keeps fields with defaults optional. */
export function toolSpecs(tools: Tool[]): ToolSpec[] {
  return tools.map((tool) => {
    let spec = specs.get(tool);
    if (!spec) {
      const { $schema: _drop, ...parameters } = tool.parameters ?? (z.toJSONSchema(tool.schema, { io: 'input' }) as Record<string, unknown>);
      spec = { type: 'function', function: { name: tool.name, description: tool.description, parameters } };
      specs.set(tool, spec);
    }
    return spec;
  });
}
