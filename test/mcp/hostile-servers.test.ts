/**
 * MCP servers that break what a model API accepts or what Loom can hold, against real
 * servers (stdio by hand, and the SDK's Streamable HTTP server with hand-made answers):
 * tool names that repeat, join to the same name, are too long or have characters no
 * function name may have, or take a name of Loom's own; and answers without end, over
 * stdio, as an HTTP JSON body and as one SSE event (docs/SECURITY.md#13-mcp-servers-are-tools-like-the-others).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { McpServers } from '../../src/core/mcp/mcp-servers';
import { MAX_MESSAGE_BYTES } from '../../src/core/mcp/message-cap';
import { ALL_TOOLS } from '../../src/core/tools/index';
import { nth } from '../support/elements';
import { startMcpHttpServer, type McpHttpServer } from '../support/mcp-http-server';
import { callContext, configIn, stdioServer, writeMcpConfig } from './support';

/** What Anthropic, DeepSeek, Gemini and OpenAI all accept as a function name. */
const VALID_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const TOOL_TIMEOUT_MS = 120_000;

let root: string;
let projectDir: string;
let servers: McpServers | undefined;
const https: McpHttpServer[] = [];

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-mcp-hostile-')));
  projectDir = path.join(root, 'project');
  fs.mkdirSync(projectDir);
});
afterEach(async () => {
  await servers?.close();
  servers = undefined;
  await Promise.all(https.splice(0).map((h) => h.close()));
  fs.rmSync(root, { recursive: true, force: true });
});

async function start(config: Record<string, unknown>): Promise<McpServers> {
  servers = await McpServers.start({
    ...configIn(writeMcpConfig(root, config)),
    projectDir,
    clientVersion: 'test',
    builtInToolNames: ALL_TOOLS.map((t) => t.name),
  });
  return servers;
}

async function httpServer(toolNames?: string[]): Promise<McpHttpServer> {
  const server = await startMcpHttpServer({ toolNames });
  https.push(server);
  return server;
}

const listing = (names: string[]) => stdioServer('listed', { sandbox: false }, [JSON.stringify(names)]);
const names = () => servers!.tools().map((t) => t.name);

function expectValidAndUnique(): void {
  for (const name of names()) expect(name).toMatch(VALID_NAME);
  expect(new Set(names()).size).toBe(names().length);
  expect(names().filter((name) => ALL_TOOLS.some((t) => t.name === name))).toEqual([]);
}

/** Each tool of the servers answers with its own server's "called NAME". */
async function expectEachCallsItsOwn(expected: Record<string, string>): Promise<void> {
  for (const [name, answer] of Object.entries(expected)) {
    const tool = servers!.tools().find((t) => t.name === name)!;
    expect(await tool.run({}, callContext(projectDir))).toBe(answer);
  }
}

describe('MCP tool names', () => {
  it('two servers whose names join to one tool name: the first keeps it, the second is renamed and told', async () => {
    await start({ docs: listing(['search__files']), docs__search: listing(['files']) });
    expect(names()).toEqual(['mcp__docs__search__files', expect.stringMatching(/^mcp__docs__search__files_[0-9a-f]{6}$/)]);
    expectValidAndUnique();
    const renamed = nth(names(), 1);
    expect(servers!.problems()).toEqual([
      `MCP server "docs__search": tool "files" is offered as ${renamed} (mcp__docs__search__files is taken by "search__files" of "docs").`,
    ]);
    expect(servers!.overview().servers.map((s) => s.state)).toEqual(['connected', 'connected']);
    expect(nth(servers!.overview().servers, 1).tools).toEqual([{ name: renamed, readOnly: false }]);
    await expectEachCallsItsOwn({ mcp__docs__search__files: 'called search__files', [renamed]: 'called files' });
  });

  it('the same file gives the same names, whichever server answers first', async () => {
    const config = { a__b: listing(['c']), a: listing(['b__c']), b: listing(['x']) };
    await start(config);
    const first = names();
    await servers!.close();
    await start(config);
    expect(names()).toEqual(first);
    expect(first[0]).toBe('mcp__a__b__c');
  });

  it('a tool listed twice is offered once, and the line says the second was left out', async () => {
    await start({ docs: listing(['search', 'lookup', 'search', 'search']) });
    expect(names()).toEqual(['mcp__docs__search', 'mcp__docs__lookup']);
    expect(servers!.problems()).toEqual([
      'MCP server "docs": tool "search" is listed twice: the second is left out; tool "search" is listed twice: the second is left out.',
    ]);
  });

  it('names too long or with characters no function name allows are made valid, and stay apart', async () => {
    const long = 'x'.repeat(80);
    await start({
      'my.docs': listing(['read.file', 'read file', 'read_file', 'naïve', '', `${long}1`, `${long}2`, 'a/b', 'tab\there']),
    });
    expect(names()).toHaveLength(9);
    expectValidAndUnique();
    // Every tool whose name changed is said, in one line for the server (the first five named).
    const [line] = servers!.problems();
    expect(servers!.problems()).toHaveLength(1);
    expect(line).toMatch(/^MCP server "my\.docs": tool "read\.file" is offered as mcp__my_docs__read_file_[0-9a-f]{6} \(a function name allows only/);
    expect(line).toMatch(/; and 4 more\.$/);
    await expectEachCallsItsOwn({ [nth(names(), 3)]: 'called naïve', [nth(names(), 6)]: `called ${long}2` });
  });

  it('a crafted name that takes the name another tool would be renamed to still leaves each its own', async () => {
    await start({ a: listing(['b__c']), a__b: listing(['c']) });
    const renamed = nth(names(), 1);
    expect(renamed).toMatch(/^mcp__a__b__c_[0-9a-f]{6}$/);
    await servers!.close();
    // Now server "a" also lists a tool named so that it takes that name first.
    await start({ a: listing(['b__c', renamed.slice('mcp__a__'.length)]), a__b: listing(['c']) });
    expect(names().slice(0, 2)).toEqual(['mcp__a__b__c', renamed]);
    expect(names()[2]).toMatch(/^mcp__a__b__c_[0-9a-f]{6}$/);
    expectValidAndUnique();
    await expectEachCallsItsOwn({ [renamed]: `called ${renamed.slice('mcp__a__'.length)}`, [nth(names(), 2)]: 'called c' });
  });

  it("a tool cannot take the name of one of Loom's own tools", async () => {
    servers = await McpServers.start({
      ...configIn(writeMcpConfig(root, { docs: listing(['search']) })),
      projectDir,
      clientVersion: 'test',
      builtInToolNames: ['read_file', 'mcp__docs__search'],
    });
    expect(names()).toEqual([expect.stringMatching(/^mcp__docs__search_[0-9a-f]{6}$/)]);
    expect(servers.problems()).toEqual([`MCP server "docs": tool "search" is offered as ${names()[0]} (mcp__docs__search is taken by Loom's own tool).`]);
  });

  it('a stdio server and an HTTP server whose names join are told apart too', async () => {
    const http = await httpServer(['files']);
    await start({ docs: listing(['search__files']), docs__search: { url: http.url } });
    expectValidAndUnique();
    expect(servers!.problems()).toEqual([
      expect.stringMatching(/^MCP server "docs__search": tool "files" is offered as mcp__docs__search__files_[0-9a-f]{6} /),
    ]);
    const renamed = names().find((n) => n.startsWith('mcp__docs__search__files_'))!;
    await expectEachCallsItsOwn({ [renamed]: 'called files', mcp__docs__search__files: 'called search__files' });
  });
});

describe('MCP answers too large to hold', () => {
  const tooLarge = `it sent a message of over ${MAX_MESSAGE_BYTES / (1024 * 1024)} MiB, which Loom does not read`;

  it.each([
    ['a JSON body without end', 'flood_json'],
    ['one SSE event without end', 'flood_sse'],
    ['an error page without end', 'flood_error'],
  ])('over HTTP, %s: the call fails with one line and Loom stops reading', async (_label, toolName) => {
    const http = await httpServer();
    await start({ docs: { url: http.url } });
    const tool = servers!.tools().find((t) => t.name === `mcp__docs__${toolName}`)!;
    const lookup = servers!.tools().find((t) => t.name === 'mcp__docs__lookup')!;
    await expect(tool.run({}, callContext(projectDir, TOOL_TIMEOUT_MS))).rejects.toThrow(`MCP server "docs" stopped: ${tooLarge}.`);
    expect(servers!.overview().servers[0]).toMatchObject({ state: 'stopped', message: `MCP server "docs" stopped: ${tooLarge}.` });
    // The server could write only what the cap and the socket buffers took before Loom hung up, not its 256 MiB.
    await vi.waitFor(() => expect(http.sent.hungUp).toBe(true), { timeout: 30_000 });
    expect(http.sent.bytes).toBeGreaterThan(MAX_MESSAGE_BYTES);
    expect(http.sent.bytes).toBeLessThan(4 * MAX_MESSAGE_BYTES);
    // Its other tools say the server stopped, and why.
    await expect(lookup.run({ word: 'x' }, callContext(projectDir))).rejects.toThrow(`MCP server "docs" stopped: ${tooLarge}.`);
  });

  it('over HTTP, a stream of many events each within the cap is read to its result', async () => {
    const http = await httpServer();
    await start({ docs: { url: http.url } });
    const tool = servers!.tools().find((t) => t.name === 'mcp__docs__chatty_sse')!;
    expect(await tool.run({}, callContext(projectDir, TOOL_TIMEOUT_MS))).toBe('after 24 MiB of chatter');
    expect(http.sent.bytes).toBeGreaterThan(24 * 1024 * 1024);
    expect(nth(servers!.overview().servers, 0).state).toBe('connected');
  });

  it('over stdio, a line without end: the call fails with one line and the server is stopped', async () => {
    await start({ flood: stdioServer('flood', { sandbox: false }) });
    const tool = nth(servers!.tools(), 0);
    await expect(tool.run({}, callContext(projectDir, TOOL_TIMEOUT_MS))).rejects.toThrow(`MCP server "flood" stopped: ${tooLarge}.`);
    expect(servers!.problems()).toEqual([`MCP server "flood" stopped: ${tooLarge}.`]);
  });

  it('over stdio, a listing without end: the server is not started, in one line', async () => {
    await start({ flood: stdioServer('flood', { sandbox: false }, ['at-list']), fine: listing(['ok']) });
    expect(servers!.problems()).toEqual([`MCP server "flood" could not be started: ${tooLarge}; Loom goes on without it.`]);
    expect(names()).toEqual(['mcp__fine__ok']);
  });
});
