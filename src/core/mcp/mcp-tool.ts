/**
 * One tool of an MCP server as a Loom tool. It goes through the same tool runner as
 * Loom's own (permission gate, audit log, size cap, untrusted-data fence). Its effect is
 * "runs commands" unless the user marked it read-only in mcp.json: what a server says of
 * its own tools (annotations such as readOnlyHint) is the server's claim, not the user's.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError, type CallToolResult, type Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { errorMessage, LoomError } from '../errors';
import { defineTool, type Tool } from '../tools/tool';
import { resultText } from './call-result';
import { isReadOnly, type McpServerConfig } from './mcp-config';

/** A server's description is shown to the model as the tool's; a runaway one is cut. */
const MAX_DESCRIPTION_CHARS = 2000;

/**
 * The most characters of a parameter schema offered to the model: it goes with every
 * request, so a runaway one (a server's whole database schema) is replaced by "an object".
 */
const MAX_SCHEMA_CHARS = 64 * 1024;

/** Most characters of a failure's description. */
const MAX_ERROR_CHARS = 500;

/** The server checks the arguments against its own schema; Loom only requires an object. */
const argumentsSchema = z.record(z.string(), z.unknown());

/**
 * `name`: what the model calls it, unique among every server's tools (tool-names.ts);
 * `whyStopped`: the line saying why the server stopped, once it has.
 */
export function mcpTool(server: McpServerConfig, info: McpToolInfo, client: Client, name: string, whyStopped: () => string | null): Tool {
  const described = (info.description ?? info.title ?? '').slice(0, MAX_DESCRIPTION_CHARS);
  const schemaFits = JSON.stringify(info.inputSchema).length <= MAX_SCHEMA_CHARS;
  const note = schemaFits ? '' : ' (Its parameter schema is too large to show: pass the arguments its documentation names.)';
  return defineTool({
    name,
    description: `Tool "${info.name}" of the MCP server "${server.name}".${note}${described ? ` ${described}` : ''}`,
    effects: isReadOnly(server, info.name) ? { kind: 'read' } : { kind: 'run-commands' },
    schema: argumentsSchema,
    parameters: schemaFits ? info.inputSchema : { type: 'object' },
    async run(args, ctx) {
      let result: CallToolResult;
      try {
        result = (await client.callTool({ name: info.name, arguments: args }, undefined, { signal: ctx.signal, timeout: ctx.toolTimeoutMs })) as CallToolResult;
      } catch (err) {
        throw new LoomError(whyStopped() ?? `MCP server "${server.name}" ${callFailure(err, ctx.toolTimeoutMs)}.`);
      }
      const text = resultText(result);
      if (result.isError) throw new LoomError(`MCP server "${server.name}" reported an error from ${info.name}: ${text}`);
      return text;
    },
  });
}

function callFailure(err: unknown, timeoutMs: number): string {
  if (err instanceof McpError && err.code === Number(ErrorCode.RequestTimeout)) return `did not answer within ${timeoutMs / 1000} s`;
  if (err instanceof McpError && err.code === Number(ErrorCode.ConnectionClosed)) return 'is not running any more (the connection closed)';
  if (err instanceof Error && err.message === 'Not connected') return 'is not running any more';
  return `failed: ${oneLine(errorMessage(err))}`;
}

/** The SDK's validation errors span lines (pretty-printed issues): the user gets one, bounded. */
function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_ERROR_CHARS ? `${line.slice(0, MAX_ERROR_CHARS)}…` : line;
}
