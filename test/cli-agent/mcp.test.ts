/**
 * `loom --mcp-config FILE` end to end: the real `loom` starts a real stdio MCP server (the
 * SDK's own classes), the scripted model calls its tool, a server that cannot start is one
 * line on stderr, and no server process outlives `loom`.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { processesWith, stdioServer, writeMcpConfig } from '../mcp/support';
import { nth } from '../support/elements';
import { runLoom, useLoomFixture } from './support';

const ctx = useLoomFixture();

describe('loom --mcp-config', () => {
  it('offers the servers’ tools, says in one line which server could not start, and leaves no server running', async () => {
    const marker = `marker-${randomUUID()}`;
    const file = writeMcpConfig(ctx.ws.root, {
      files: stdioServer('serve', { readOnlyTools: ['echo'] }, [marker, '--child']),
      // Unconfined and deaf to SIGTERM: only the kill after the grace ends it, and loom waits for that.
      stubborn: stdioServer('serve', { sandbox: false }, [marker, '--ignore-term']),
      broken: stdioServer('crash'),
    });
    ctx.server.enqueue({ toolCalls: [{ id: 'e1', name: 'mcp__files__echo', arguments: { text: 'from the cli' } }] }, { text: 'The server answered.' });
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--mcp-config', file, '-p', 'ask the server']);

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('The server answered.');
    const lines = run.stderr.split('\n').filter((line) => line.includes('MCP server'));
    expect(lines).toEqual([expect.stringMatching(/^MCP server "broken" could not be started: it exited \(exit code 1\): .*; Loom goes on without it\.$/)]);
    const second = ctx.server.requests.map((r) => r.body).filter((b) => b.tools)[1];
    expect(second.messages.at(-1)).toMatchObject({ role: 'tool', content: '<tool_result name="mcp__files__echo">\necho: from the cli\n</tool_result>' });
    expect(processesWith(marker)).toEqual([]);
  });

  it('two servers whose tool names join: the model gets each tool once under its own name, and stderr says which was renamed', async () => {
    const listing = (names: string[]) => stdioServer('listed', { sandbox: false }, [JSON.stringify(names)]);
    const file = writeMcpConfig(ctx.ws.root, { docs: listing(['search__files', 'search__files']), docs__search: listing(['files']) });
    ctx.server.enqueue({ text: 'Both are here.' });
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--mcp-config', file, '-p', 'hello']);
    expect(run.code).toBe(0);
    const offered: string[] = nth(ctx.server.requests, 0).body.tools.map((t: any) => t.function.name);
    expect(new Set(offered).size).toBe(offered.length);
    const mcpTools = offered.filter((name) => name.startsWith('mcp__'));
    expect(mcpTools).toEqual(['mcp__docs__search__files', expect.stringMatching(/^mcp__docs__search__files_[0-9a-f]{6}$/)]);
    const lines = run.stderr.split('\n').filter((line) => line.includes('MCP server'));
    expect(lines).toEqual([
      'MCP server "docs": tool "search__files" is listed twice: the second is left out.',
      `MCP server "docs__search": tool "files" is offered as ${mcpTools[1]} (mcp__docs__search__files is taken by "search__files" of "docs").`,
    ]);
  });

  it('a named file that is missing is one line; the chat goes on with Loom’s own tools', async () => {
    ctx.server.enqueue({ text: 'Still here.' });
    const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--mcp-config', path.join(ctx.ws.root, 'nope.json'), '-p', 'hello']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Still here.');
    expect(run.stderr).toMatch(/^MCP servers not started: .*nope\.json could not be read \(ENOENT/m);
    expect(nth(ctx.server.requests, 0).body.tools.map((t: any) => t.function.name)).toContain('read_file');
  });
});
