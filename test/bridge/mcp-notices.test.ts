/**
 * What a window learns of MCP tools that were renamed or left out: the backend (the app's
 * and the browser mode's) starts the servers of the data folder's mcp.json, and
 * `settings.mcpServers` carries, for each server whose tools changed name, the one line the
 * window shows as a banner (`mcpProblems`, App.tsx) and in the settings dialog.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { openBackend, type Backend } from '../../src/backend/backend';
import { dispatch } from '../../src/backend/dispatch';
import { JsonFileSettingsStore } from '../../src/backend/settings-store';
import { mcpProblems, type McpOverview } from '../../src/shared/mcp';
import { stdioServer, writeMcpConfig } from '../mcp/support';
import { nth } from '../support/elements';

let backend: Backend | undefined;
let root: string | undefined;
afterEach(async () => {
  await backend?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

it('settings.mcpServers names the renamed and the dropped tool, one line per server, and those are the banners', async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-mcp-notices-'));
  const dataDir = path.join(root, 'data');
  fs.mkdirSync(dataDir, { mode: 0o700 });
  const listing = (names: string[]) => stdioServer('listed', { sandbox: false }, [JSON.stringify(names)]);
  writeMcpConfig(dataDir, { docs: listing(['search__files', 'search__files']), docs__search: listing(['files']) });
  backend = openBackend({ dataDir, settingsStore: new JsonFileSettingsStore(dataDir), shell: 'browser', projectDir: root, env: {} });

  const overview = async () => {
    const answer = await dispatch(backend!.handlers, 'settings.mcpServers', {});
    if (!answer.ok) throw new Error(answer.error.message);
    return answer.value as McpOverview;
  };
  await vi.waitFor(async () => expect((await overview()).servers.map((s) => s.state)).toEqual(['connected', 'connected']), { timeout: 30_000 });
  const { servers } = await overview();
  const renamed = nth(nth(servers, 1).tools, 0).name;
  expect(renamed).toMatch(/^mcp__docs__search__files_[0-9a-f]{6}$/);
  expect(nth(servers, 0).tools.map((t) => t.name)).toEqual(['mcp__docs__search__files']);
  expect(mcpProblems(await overview())).toEqual([
    'MCP server "docs": tool "search__files" is listed twice: the second is left out.',
    `MCP server "docs__search": tool "files" is offered as ${renamed} (mcp__docs__search__files is taken by "search__files" of "docs").`,
  ]);
});
