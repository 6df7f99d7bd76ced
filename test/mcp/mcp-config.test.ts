/**
 * mcp.json: the Claude Desktop / Cursor shape is read as it is, Loom's own keys with it; a
 * file that is not that shape gives one line naming the file and the place, and no servers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isReadOnly, loadMcpConfig, parseMcpConfig } from '../../src/core/mcp/mcp-config';
import { mcpToolName } from '../../src/core/mcp/tool-names';
import { nth } from '../support/elements';

let dir: string;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('mcp.json', () => {
  it('reads stdio and HTTP servers in the shape Claude Desktop writes', () => {
    const text = JSON.stringify({
      mcpServers: {
        files: { command: 'npx', args: ['-y', 'some-server'], env: { TOKEN: 'x' }, readOnlyTools: ['list'] },
        docs: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer t' }, readOnly: true },
        local: { command: './server', sandbox: false },
      },
    });
    const { servers, problem } = parseMcpConfig(text, 'mcp.json');
    expect(problem).toBeNull();
    expect(servers.map((s) => [s.name, s.transport])).toEqual([
      ['files', 'stdio'],
      ['docs', 'http'],
      ['local', 'stdio'],
    ]);
    expect(servers[0]).toMatchObject({ stdio: { command: 'npx', args: ['-y', 'some-server'], env: { TOKEN: 'x' } } });
    expect([isReadOnly(nth(servers, 0), 'list'), isReadOnly(nth(servers, 0), 'delete'), isReadOnly(nth(servers, 1), 'anything')]).toEqual([true, false, true]);
  });

  it('a missing default file means no servers and no complaint; a missing named file is one line', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-mcp-config-'));
    const file = path.join(dir, 'mcp.json');
    expect(loadMcpConfig(file)).toEqual({ servers: [], problem: null });
    expect(loadMcpConfig(file, true).problem).toMatch(/^MCP servers not started: .*mcp\.json could not be read/);
  });

  it.each([
    ['not JSON', '{"mcpServers": {', /is not valid JSON/],
    ['no mcpServers', '{"servers": {}}', /mcpServers: /],
    ['neither command nor url', '{"mcpServers": {"x": {"cmd": "a"}}}', /mcpServers\.x: a server needs either "command" \(stdio\) or "url" \(HTTP\)/],
    ['a URL that is not http', '{"mcpServers": {"x": {"url": "file:///etc/passwd"}}}', /mcpServers\.x/],
    ['a name no tool name can carry', '{"mcpServers": {"my server!": {"command": "a"}}}', /mcpServers\.my server!: not a server name/],
    ['args that are not strings', '{"mcpServers": {"x": {"command": "a", "args": [1]}}}', /mcpServers\.x/],
  ])('%s: one line, no servers', (_what, text, expected) => {
    const outcome = parseMcpConfig(text, '/data/mcp.json');
    expect(outcome.servers).toEqual([]);
    expect(outcome.problem).toMatch(/^MCP servers not started: \/data\/mcp\.json /);
    expect(outcome.problem).toMatch(expected);
    expect(outcome.problem).not.toContain('\n');
  });
});

describe('MCP tool names', () => {
  it('are mcp__server__tool, in the characters and length OpenAI allows, and stay distinct', () => {
    expect(mcpToolName('files', 'read_file')).toBe('mcp__files__read_file');
    const dotted = mcpToolName('files', 'read.file');
    const spaced = mcpToolName('files', 'read file');
    for (const name of [dotted, spaced, mcpToolName('s', 'x'.repeat(200))]) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(dotted).toMatch(/^mcp__files__read_file_[0-9a-f]{6}$/);
    expect(new Set([dotted, spaced, 'mcp__files__read_file']).size).toBe(3);
    expect(mcpToolName('s', 'a'.repeat(100))).not.toBe(mcpToolName('s', `${'a'.repeat(99)}b`));
  });
});
