/**
 * What the model calls an MCP tool: `mcp__<server>__<tool>`, in the characters OpenAI
 * allows in a function name (letters, digits, _ and -, at most 64). A name that had to be
 * changed, or cut, gets a short hash of the original so that two tools never share one.
 */
import { createHash } from 'node:crypto';

const MAX_NAME = 64;
const HASH_CHARS = 6;

export function mcpToolName(server: string, tool: string): string {
  const wanted = `mcp__${server}__${tool}`;
  const clean = wanted.replace(/[^A-Za-z0-9_-]/g, '_');
  if (clean === wanted && clean.length <= MAX_NAME) return clean;
  const hash = createHash('sha256').update(wanted).digest('hex').slice(0, HASH_CHARS);
  return `${clean.slice(0, MAX_NAME - HASH_CHARS - 1)}_${hash}`;
}
