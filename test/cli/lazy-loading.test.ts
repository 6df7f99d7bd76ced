/**
 * `loom`'s lifecycle commands start at once because they never load the heavy code
 * (docs/ARCHITECTURE.md#the-node-build): the built command runs with a loader hook that
 * records every file it loads, and each chunk of dist/ is told apart by its source map.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { compileCacheFolder } from '../../src/cli/compile-cache';
import { SessionStore } from '../../src/core/store/session-store';
import { nth } from '../support/elements';
import { startScriptedServer } from '../support/scripted-server';
import { BIN, buildLoom, makeTempDir, removeDir } from './run-loom';

const RECORDER = fileURLToPath(new URL('./load-recorder/register.mjs', import.meta.url));
/**
 * What only chatting or importing needs: the engine and agent, the model client, MCP, zod,
 * tree-sitter, the HTML tooling (the HTML export's Markdown parser and highlighter too); and
 * commander, which `loom` no longer parses its options with.
 */
const HEAVY = [
  /src\/core\/engine\.ts$/,
  /src\/core\/agent\//,
  /src\/core\/mcp\//,
  /src\/core\/import\/(?!summary\.ts$)/,
  /src\/core\/store\/(export-html|markdown-html)\.ts$/,
  /node_modules\/(openai|@modelcontextprotocol|zod|web-tree-sitter|html-to-text|commander|marked|highlight\.js)\//,
];

/** What only the hub commands need: the PostgreSQL client and the code that talks to a hub. */
const HUB = [/node_modules\/pg(-[a-z]+)?\//, /src\/core\/sync\/(hub-connection|hub-init|hub-teams|team-search)\.ts$/];

let dir: string;

/** The URLs one `loom` run loaded: Node's built-in modules and the dist/ files. */
async function modulesLoadedBy(args: string[], exitCode = 0): Promise<string[]> {
  const log = path.join(dir, 'loaded.log');
  fs.rmSync(log, { force: true });
  const env = { PATH: process.env.PATH ?? '', HOME: dir, LOOM_LOAD_LOG: log };
  const code = await promisify(execFile)(process.execPath, ['--import', RECORDER, BIN, ...args, '--data-dir', dir], { env }).then(
    () => 0,
    (err: { code?: number }) => err.code,
  );
  expect(code).toBe(exitCode);
  return fs.readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

/** The dist/ files one `loom` run loaded. */
async function distFilesLoadedBy(args: string[], exitCode = 0): Promise<string[]> {
  return (await modulesLoadedBy(args, exitCode)).filter((url) => url.startsWith('file:') && url.includes('/dist/')).map((url) => fileURLToPath(url));
}

/** The source files bundled into the dist/ files one `loom` run loaded. */
async function sourcesLoadedBy(args: string[], exitCode = 0): Promise<string[]> {
  const files = await distFilesLoadedBy(args, exitCode);
  return files.flatMap((file) => (JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')) as { sources: string[] }).sources);
}

const heavyIn = (sources: string[]) => sources.filter((source) => HEAVY.some((pattern) => pattern.test(source)));
const hubCodeIn = (sources: string[]) => sources.filter((source) => HUB.some((pattern) => pattern.test(source)));

beforeAll(buildLoom, 120_000);

beforeEach(() => {
  dir = makeTempDir();
  const store = SessionStore.open(dir);
  const session = store.create({ title: 'Parser fix' });
  store.appendMessage(session.id, { role: 'user', content: 'The tokenizer crashes on unicode input.' });
  store.close();
});

afterEach(() => removeDir(dir));

describe('loom lifecycle commands load only what they need', () => {
  it.each([['--list-sessions'], ['--search', 'tokenizer'], ['--version'], ['--doctor']])(
    '%s loads no agent, model client, MCP, importer, zod nor commander code',
    async (...args) => {
      const sources = await sourcesLoadedBy(args);
      expect(sources).toContainEqual(expect.stringMatching(/src\/cli\/main\.ts$/));
      expect(heavyIn(sources)).toEqual([]);
    },
  );

  it.each([['--list-sessions'], ['--search', 'tokenizer'], ['--version']])('%s loads no PostgreSQL client', async (...args) => {
    expect(hubCodeIn(await sourcesLoadedBy(args))).toEqual([]);
  });

  it('--hub-init loads the PostgreSQL client and no agent, model client, MCP nor zod code', async () => {
    // Nothing listens on port 1: the command fails (exit 1) after loading what it needs.
    const sources = await sourcesLoadedBy(['--hub-init', 'postgres://owner@127.0.0.1:1/loom'], 1);
    expect(hubCodeIn(sources)).toContainEqual(expect.stringMatching(/node_modules\/pg\//));
    expect(heavyIn(sources)).toEqual([]);
  });

  it('--sync loads the PostgreSQL client and no agent, model client, MCP nor zod code', async () => {
    const sources = await sourcesLoadedBy(['--sync', '--hub', 'postgres://alice@127.0.0.1:1/loom'], 1);
    expect(hubCodeIn(sources)).toContainEqual(expect.stringMatching(/node_modules\/pg\//));
    expect(heavyIn(sources)).toEqual([]);
  });

  it('--version loads one file of the build, a lifecycle command two: each file is a round trip of Node’s module loader', async () => {
    const id = await sessionId();
    expect(await distFilesLoadedBy(['--version'])).toEqual([expect.stringMatching(/\/dist\/cli\.js$/)]);
    for (const args of [['--list-sessions'], ['--search', 'tokenizer'], ['--info', id], ['--rename', id, 'Lexer fix'], ['--doctor']]) {
      const files = await distFilesLoadedBy(args);
      expect(files).toEqual([expect.stringMatching(/\/dist\/cli\.js$/), expect.stringMatching(/\/dist\/chunks\/cli\/commands-\w+\.js$/)]);
    }
  });

  it('--version and --help load no store (nor the native SQLite module)', async () => {
    for (const args of [['--version'], ['--help']]) {
      const sources = await sourcesLoadedBy(args);
      expect(sources.filter((source) => /src\/core\/store\/|node_modules\/better-sqlite3\//.test(source))).toEqual([]);
    }
  });

  it('--info and --export read the store without the engine, and without node:crypto (only a new session needs an id)', async () => {
    const id = await sessionId();
    for (const args of [['--info', id], ['--export', id], ['--list-sessions']]) {
      const modules = await modulesLoadedBy(args);
      expect(modules).not.toContain('node:crypto');
      expect(heavyIn(await sourcesLoadedBy(args))).toEqual([]);
    }
  });

  it('--export --format html alone loads the Markdown parser and highlighter, as a file of its own', async () => {
    const id = await sessionId();
    expect(await distFilesLoadedBy(['--export', id, '--format', 'html'])).toEqual([
      expect.stringMatching(/\/dist\/cli\.js$/),
      expect.stringMatching(/\/dist\/chunks\/cli\/commands-\w+\.js$/),
      expect.stringMatching(/\/dist\/chunks\/cli\/html-\w+\.js$/),
    ]);
    const sources = await sourcesLoadedBy(['--export', id, '--format', 'html']);
    expect(sources).toContainEqual(expect.stringMatching(/node_modules\/highlight\.js\//));
    expect(sources.filter((source) => /src\/core\/(engine\.ts|agent\/)/.test(source))).toEqual([]);
  });

  it('--rename, --pin, --unpin, --archive, --unarchive, --fork and --delete go through the engine’s lifecycle (and so its lease rule), without the rest of the engine', async () => {
    const id = await sessionId();
    for (const args of [
      ['--rename', id, 'Lexer fix'],
      ['--pin', id],
      ['--unpin', id],
      ['--archive', id],
      ['--unarchive', id],
      ['--fork', id],
      ['--delete', id, '--yes'],
    ]) {
      const sources = await sourcesLoadedBy(args);
      expect(sources).toContainEqual(expect.stringMatching(/src\/core\/session-lifecycle\.ts$/));
      expect(heavyIn(sources)).toEqual([]);
    }
  });

  it('--import loads the whole engine (an export is checked with its zod schema)', async () => {
    const exported = path.join(dir, 'session.json');
    fs.writeFileSync(exported, await loomOutput(['--export', await sessionId()]));
    const sources = await sourcesLoadedBy(['--import', exported]);
    expect(sources).toContainEqual(expect.stringMatching(/src\/core\/engine\.ts$/));
  });
});

describe('a chat loads MCP only for the servers it has', () => {
  it('with no MCP configuration, loom -p loads no MCP client (and still answers)', async () => {
    const server = await startScriptedServer();
    try {
      server.enqueue({ text: 'Hello.' });
      const sources = await sourcesLoadedBy(['-p', 'hi', '--base-url', server.baseUrl]);
      expect(JSON.stringify(server.requests[0]?.body.messages)).toContain('hi');
      expect(sources).toContainEqual(expect.stringMatching(/src\/core\/engine\.ts$/));
      expect(sources.filter((source) => /src\/core\/mcp\/mcp-servers\.ts$|node_modules\/@modelcontextprotocol\//.test(source))).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('with an MCP configuration that names a server, loom -p loads the MCP client', async () => {
    const server = await startScriptedServer();
    try {
      server.enqueue({ text: 'Hello.' });
      fs.writeFileSync(path.join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { gone: { command: path.join(dir, 'no-such-server') } } }));
      const sources = await sourcesLoadedBy(['-p', 'hi', '--base-url', server.baseUrl]);
      expect(sources).toContainEqual(expect.stringMatching(/node_modules\/@modelcontextprotocol\//));
    } finally {
      await server.close();
    }
  });
});

describe('the compile cache', () => {
  it('is kept under the data folder, made after a command succeeds, filled by the next, and may be deleted at any time', async () => {
    const cache = compileCacheFolder(dir);
    await loomOutput(['--list-sessions']);
    expect(fs.readdirSync(cache)).toEqual([]);
    await loomOutput(['--list-sessions']);
    expect(fs.readdirSync(cache, { recursive: true }).length).toBeGreaterThan(1);
    fs.rmSync(path.join(dir, 'cache'), { recursive: true });
    expect(await loomOutput(['--list-sessions'])).toContain('Parser fix');
    expect(fs.statSync(cache).mode & 0o777).toBe(0o700);
  });

  it('is not made by a refused command, nor by --doctor', async () => {
    const fresh = path.join(dir, 'fresh');
    fs.mkdirSync(path.join(fresh, 'loom.db'), { recursive: true });
    const refused = await promisify(execFile)(process.execPath, [BIN, '--list-sessions', '--data-dir', fresh], {
      env: { PATH: process.env.PATH ?? '', HOME: dir },
    }).then(
      () => 0,
      (err: { code?: number }) => err.code,
    );
    expect(refused).toBe(1);
    expect(fs.readdirSync(fresh)).toEqual(['loom.db']);
    await loomOutput(['--doctor']);
    expect(fs.existsSync(path.join(dir, 'cache'))).toBe(false);
  });
});

async function sessionId(): Promise<string> {
  const store = SessionStore.open(dir);
  try {
    return nth(store.list(), 0).id;
  } finally {
    store.close();
  }
}

async function loomOutput(args: string[]): Promise<string> {
  const env = { PATH: process.env.PATH ?? '', HOME: dir };
  return (await promisify(execFile)(process.execPath, [BIN, ...args, '--data-dir', dir], { env })).stdout;
}
