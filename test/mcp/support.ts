/** What the MCP tests share: the stdio test server's command line, a config file, and the processes a marker finds. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadMcpConfig, type McpConfigOutcome } from '../../src/core/mcp/mcp-config';
import type { ToolContext } from '../../src/core/tools/tool';

export const STDIO_SERVER = fileURLToPath(new URL('../support/mcp-stdio-server.mjs', import.meta.url));

/** An mcp.json entry that starts the stdio test server in `mode`, with extra arguments (a marker, --child). */
export function stdioServer(
  mode: 'serve' | 'crash' | 'hang' | 'garbage' | 'invalid' | 'listed' | 'flood',
  more: Record<string, unknown> = {},
  args: string[] = [],
) {
  return { command: process.execPath, args: [STDIO_SERVER, mode, ...args], ...more };
}

export function writeMcpConfig(dir: string, servers: Record<string, unknown>): string {
  const file = path.join(dir, 'mcp.json');
  fs.writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  return file;
}

/** The file and what Loom reads in it, as the engine hands them to McpServers.start. */
export function configIn(file: string): { configFile: string; config: McpConfigOutcome } {
  return { configFile: file, config: loadMcpConfig(file, true) };
}

/** Pids of the live processes whose command line has `marker` as an argument. */
export function processesWith(marker: string): number[] {
  return fs.readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) return [];
    try {
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const state = fs.readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0];
      return args.includes(marker) && state !== 'Z' ? [Number(entry)] : [];
    } catch {
      return []; // gone meanwhile
    }
  });
}

/** What an MCP tool's run needs from a call: its time limit and stop signal. */
export function callContext(projectDir: string, toolTimeoutMs = 10_000): ToolContext {
  return { projectDir, toolTimeoutMs, signal: new AbortController().signal } as ToolContext;
}
