/**
 * mcp.json edited from the settings dialog (src/core/mcp/mcp-config-file.ts): one entry
 * added, replaced, renamed or removed with the rest of the file kept, saved secrets kept
 * without the dialog seeing them, and a file Loom cannot read refused untouched.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeMcpServer, saveMcpServer } from '../../src/core/mcp/mcp-config-file';
import { loadMcpConfig } from '../../src/core/mcp/mcp-config';
import type { McpServerEdit } from '../../src/shared/mcp';

let dir: string;
let file: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-mcp-file-'));
  file = path.join(dir, 'mcp.json');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const read = () => JSON.parse(fs.readFileSync(file, 'utf8'));
const flags = { readOnly: false, readOnlyTools: [], disabled: false };
const stdio = (command: string, env: Record<string, string | null> = {}): McpServerEdit => ({
  transport: 'stdio',
  command,
  args: ['--serve'],
  env,
  sandbox: true,
  ...flags,
});

describe('saving an MCP server', () => {
  it('makes the file when there is none, private to the user', async () => {
    await saveMcpServer(file, 'files', stdio('files-server', { ROOT: '/srv' }));
    expect(read()).toEqual({ mcpServers: { files: { command: 'files-server', args: ['--serve'], env: { ROOT: '/srv' } } } });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(loadMcpConfig(file).problem).toBeNull();
  });

  it('keeps the other servers, their order, the keys the dialog does not edit, and a secret it left as saved', async () => {
    fs.writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          first: { command: 'a' },
          docs: { url: 'https://docs.example/mcp', headers: { Authorization: 'Bearer s3cret' }, type: 'streamable-http', startupTimeoutSec: 45 },
          last: { command: 'z', sandbox: false },
        },
      }),
    );
    await saveMcpServer(file, 'docs', {
      transport: 'http',
      url: 'https://docs.example/v2/mcp',
      headers: { Authorization: null, 'X-Team': 'loom' },
      ...flags,
      readOnly: true,
    });
    expect(Object.keys(read().mcpServers)).toEqual(['first', 'docs', 'last']);
    expect(read().mcpServers.docs).toEqual({
      url: 'https://docs.example/v2/mcp',
      headers: { Authorization: 'Bearer s3cret', 'X-Team': 'loom' },
      readOnly: true,
      type: 'streamable-http',
      startupTimeoutSec: 45,
    });
    expect(read().mcpServers.last).toEqual({ command: 'z', sandbox: false });
  });

  it('renames in place, and refuses a name another server has', async () => {
    fs.writeFileSync(file, JSON.stringify({ mcpServers: { one: { command: 'a' }, two: { command: 'b' }, three: { command: 'c' } } }));
    await saveMcpServer(file, 'second', stdio('b'), 'two');
    expect(Object.keys(read().mcpServers)).toEqual(['one', 'second', 'three']);
    const before = fs.readFileSync(file, 'utf8');
    await expect(saveMcpServer(file, 'one', stdio('c'), 'three')).rejects.toThrow('An MCP server named "one" is already configured.');
    await expect(saveMcpServer(file, 'x', stdio('c'), 'gone')).rejects.toThrow(`There is no MCP server "gone" in ${file}.`);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });

  it('refuses to keep a value that was never saved', async () => {
    await expect(saveMcpServer(file, 'files', stdio('x', { TOKEN: null }))).rejects.toThrow(
      'The environment variable TOKEN has no saved value to keep; type one.',
    );
    expect(fs.existsSync(file)).toBe(false);
  });

  it('refuses a file it cannot read as a configuration, changing no byte of it', async () => {
    const hand = '{"mcpServers": {"files": {"command": "x",}}}';
    fs.writeFileSync(file, hand);
    await expect(saveMcpServer(file, 'more', stdio('y'))).rejects.toThrow(
      /^MCP servers not started: .*mcp\.json is not valid JSON .*; fix it by hand first: nothing was changed\.$/,
    );
    await expect(removeMcpServer(file, 'files')).rejects.toThrow(/fix it by hand first/);
    expect(fs.readFileSync(file, 'utf8')).toBe(hand);
    expect(fs.readdirSync(dir)).toEqual(['mcp.json']);
  });

  it('writes through a symbolic link, which stays a link', async () => {
    const real = path.join(dir, 'dotfiles-mcp.json');
    fs.writeFileSync(real, JSON.stringify({ mcpServers: {} }));
    fs.symlinkSync(real, file);
    await saveMcpServer(file, 'files', stdio('x'));
    expect(fs.lstatSync(file).isSymbolicLink()).toBe(true);
    expect(JSON.parse(fs.readFileSync(real, 'utf8')).mcpServers.files.command).toBe('x');
  });
});

describe('removing an MCP server', () => {
  it('removes its entry only, and names a server that is not there', async () => {
    fs.writeFileSync(file, JSON.stringify({ mcpServers: { one: { command: 'a', env: { K: 'v' } }, two: { command: 'b' } } }));
    await removeMcpServer(file, 'one');
    expect(read()).toEqual({ mcpServers: { two: { command: 'b' } } });
    await expect(removeMcpServer(file, 'one')).rejects.toThrow(`There is no MCP server "one" in ${file}.`);
  });
});
