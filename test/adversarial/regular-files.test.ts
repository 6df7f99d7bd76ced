/**
 * Guarantee 2: only regular files are read or written, and nothing blocks. Attacked with
 * real FIFOs (nobody, a reader or a writer at the other end; swapped in while tools run),
 * a listening unix socket and a character device made with mknod, against the real tools,
 * the permission check and the snapshots; then end to end: the built `loom` and the
 * browser-mode server, each with a scripted model that calls write_file on a FIFO.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { decide } from '../../src/core/security/permissions';
import { FileSnapshots } from '../../src/core/security/snapshots';
import { ALL_TOOLS } from '../../src/core/tools/index';
import { editFileTool, globFilesTool, grepTool, readFileTool, writeFileTool } from '../../src/core/tools/fs-tools';
import { startBrowserMode } from '../../src/server/browser-mode';
import { request } from '../bridge/helpers';
import { startLoom, useLoomFixture } from '../cli-agent/support';
import { nth } from '../support/elements';
import { startScriptedServer } from '../support/scripted-server';
import { call, makeHarness, tempDir, type Harness } from '../tools/support';

let h: Harness;
const at = (...parts: string[]) => path.join(h.projectDir, ...parts);
const children = new Set<ChildProcess>();

beforeEach(() => {
  h = makeHarness();
});
afterEach(async () => {
  await Promise.all([...children].map(stop));
  h.cleanup();
});

/** A process at the other end of a FIFO: `cat` blocks opening it to read, `sh -c 'echo > f'` to write. */
function peer(command: string, args: string[]): { child: ChildProcess; output: () => string } {
  const child = spawn(command, args, { cwd: h.projectDir, stdio: ['ignore', 'pipe', 'ignore'] });
  children.add(child);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return { child, output: () => out };
}

function stop(child: ChildProcess): Promise<void> {
  children.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  return exited;
}

/** Every file tool refuses `p` with `message`, and `p` is still what it was. */
async function everyToolRefuses(p: string, message: string): Promise<void> {
  await expect(call(readFileTool, { path: p }, h.ctx), 'read_file').rejects.toThrow(message);
  await expect(call(writeFileTool, { path: p, content: 'written' }, h.ctx), 'write_file').rejects.toThrow(message);
  await expect(call(editFileTool, { path: p, old_string: 'a', new_string: 'b' }, h.ctx), 'edit_file').rejects.toThrow(message);
  await expect(call(grepTool, { pattern: 'a', path: p }, h.ctx), 'grep').rejects.toThrow(message);
}

const FIFO_ERROR = 'pipe is a named pipe (FIFO), not a regular file; file tools read and write regular files only.';

describe('Guarantee 2: only regular files are read or written', () => {
  it('a FIFO gets one clear error from every file tool at once, with nobody, a reader or a writer at the other end', async () => {
    execFileSync('mkfifo', [at('pipe')]);
    await everyToolRefuses('pipe', FIFO_ERROR);
    const reader = peer('cat', ['pipe']);
    await everyToolRefuses('pipe', FIFO_ERROR);
    await stop(reader.child);
    expect(reader.output()).toBe(''); // nothing was ever written into it
    const writer = peer('sh', ['-c', 'echo from-the-writer > pipe']);
    await everyToolRefuses('pipe', FIFO_ERROR);
    await stop(writer.child);
    expect(fs.lstatSync(at('pipe')).isFIFO()).toBe(true);
  });

  it('a listening unix socket gets a clear error and never a connection', async () => {
    const server = net.createServer();
    let connections = 0;
    server.on('connection', (socket) => (connections++, socket.destroy()));
    await new Promise<void>((resolve) => server.listen(at('sock'), resolve));
    try {
      await everyToolRefuses('sock', 'sock is a socket, not a regular file');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(connections).toBe(0);
  });

  it('a device made with mknod is refused without being opened; one reached through a symlink is outside', async () => {
    execFileSync('mknod', [at('zero'), 'c', '1', '5']);
    await everyToolRefuses('zero', 'zero is a device, not a regular file');
    expect(fs.lstatSync(at('zero')).isCharacterDevice()).toBe(true);
    fs.symlinkSync('/dev/zero', at('zero-link'));
    await everyToolRefuses('zero-link', 'outside the project folder');
  });

  it('grep and glob_files pass over FIFOs, sockets and devices in a folder and still answer', async () => {
    h.write('src/a.ts', 'needle\n');
    execFileSync('mkfifo', [at('src', 'pipe.ts')]);
    execFileSync('mknod', [at('src', 'zero.ts'), 'c', '1', '5']);
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(at('src', 'sock.ts'), resolve));
    const writer = peer('sh', ['-c', 'echo needle > src/pipe.ts']);
    try {
      expect(await call(grepTool, { pattern: 'needle' }, h.ctx)).toBe('src/a.ts:1: needle');
      expect(await call(globFilesTool, { pattern: '**/*.ts' }, h.ctx)).toBe('src/a.ts');
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await stop(writer.child);
    }
  });

  it('a file swapped for a FIFO over and over while tools read and write it: every call ends, none blocks', async () => {
    const swapper = peer('bash', ['-c', "while :; do rm -f f; mkfifo f; rm -f f; printf 'text\\n' > f.tmp; mv -f f.tmp f; done 2>/dev/null"]);
    const seen = { fifo: 0, text: 0 };
    try {
      for (let i = 0; i < 3000 && (i < 200 || seen.fifo === 0 || seen.text === 0); i++) {
        for (const run of [
          () => call(readFileTool, { path: 'f' }, h.ctx),
          () => call(writeFileTool, { path: 'f', content: 'text\n' }, h.ctx),
          () => call(editFileTool, { path: 'f', old_string: 'text', new_string: 'text' }, h.ctx),
          () => call(grepTool, { pattern: 'text', path: 'f' }, h.ctx),
        ]) {
          try {
            if ((await run()) === '1: text') seen.text++;
          } catch (err) {
            expect(err).toHaveProperty('name', 'LoomError');
            if (/named pipe|not a regular file/.test((err as Error).message)) seen.fifo++;
          }
        }
      }
    } finally {
      await stop(swapper.child);
    }
    expect(seen.fifo).toBeGreaterThan(0);
    expect(seen.text).toBeGreaterThan(0);
  }, 120_000);

  it('snapshots and revert never open a FIFO: a written file that became one is left alone and reported', async () => {
    h.write('a.txt', 'original\n');
    execFileSync('mkfifo', [at('pipe')]);
    const snaps = new FileSnapshots();
    await snaps.snapshot(h.projectDir, at('pipe'));
    await snaps.snapshot(h.projectDir, at('a.txt'));
    await snaps.snapshot(h.projectDir, at('made.txt'));
    await call(writeFileTool, { path: 'a.txt', content: 'changed\n' }, h.ctx);
    await call(writeFileTool, { path: 'made.txt', content: 'new\n' }, h.ctx);
    for (const name of ['a.txt', 'made.txt']) {
      fs.rmSync(at(name));
      execFileSync('mkfifo', [at(name)]);
    }
    const reader = peer('cat', ['a.txt']);
    expect(await snaps.changedFiles()).toEqual([at('a.txt'), at('made.txt')]);
    const report = await snaps.revert();
    expect(report.reverted).toEqual([]);
    expect(report.leftAlone).toEqual([
      { path: at('a.txt'), reason: 'a.txt is a named pipe (FIFO), not a regular file; file tools read and write regular files only.' },
      { path: at('made.txt'), reason: 'made.txt is now a named pipe (FIFO), not the file this session wrote; it was left alone.' },
    ]);
    await stop(reader.child);
    expect(reader.output()).toBe('');
    for (const name of ['pipe', 'a.txt', 'made.txt']) expect(fs.lstatSync(at(name)).isFIFO(), name).toBe(true);
  });

  it('no synchronous fs call names a project path while the permission check, snapshots and file tools run', async () => {
    h.write('src/a.ts', 'needle\n');
    h.write('full.txt', 'all of it');
    execFileSync('mkfifo', [at('pipe')]);
    const touched: string[] = [];
    const spies = Object.keys(fs)
      .filter((name) => name.endsWith('Sync') && typeof (fs as any)[name] === 'function')
      .map((name) => {
        const original = (fs as any)[name] as (...args: unknown[]) => unknown;
        return vi.spyOn(fs as any, name).mockImplementation(function (this: unknown, ...args: unknown[]) {
          if (args.some((a) => typeof a === 'string' && a.startsWith(h.projectDir))) touched.push(`${name}(${String(args[0])})`);
          return original.apply(this, args);
        });
      });
    try {
      const snaps = new FileSnapshots();
      const tool = (name: string) => ALL_TOOLS.find((t) => t.name === name)!;
      for (const p of ['full.txt', 'pipe', 'src/a.ts']) {
        await decide({ tool: tool('write_file'), args: { path: p, content: '' }, mode: 'acceptEdits', projectDir: h.projectDir });
        await decide({ tool: tool('edit_file'), args: { path: p, old_string: 'all of it', new_string: '' }, mode: 'acceptEdits', projectDir: h.projectDir });
        await snaps.snapshot(h.projectDir, at(p));
        await call(readFileTool, { path: p }, h.ctx).catch(() => {});
        await call(writeFileTool, { path: p, content: 'needle 2\n' }, h.ctx).catch(() => {});
        await call(editFileTool, { path: p, old_string: 'needle', new_string: 'pin' }, h.ctx).catch(() => {});
      }
      await call(grepTool, { pattern: 'pin' }, h.ctx);
      await call(globFilesTool, { pattern: '**/*' }, h.ctx);
      await snaps.changedFiles();
      await snaps.revert();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(touched).toEqual([]);
    expect(fs.readFileSync(at('full.txt'), 'utf8')).toBe('all of it');
  });
});

describe('Guarantee 2 end to end: `loom` in a terminal', () => {
  const ctx = useLoomFixture();

  it('a model that calls write_file on a FIFO gets a tool error; the turn ends and loom exits normally', async () => {
    const pipe = path.join(ctx.ws.projectDir, 'pipe');
    execFileSync('mkfifo', [pipe]);
    ctx.server.enqueue(
      { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'pipe', content: 'hello\n' } }] },
      { text: 'The pipe cannot be written.' },
      { text: 'Pipe' },
    );
    const loom = startLoom(ctx.ws, ctx.server.baseUrl, ['--mode', 'acceptEdits']);
    loom.write('write hello into the pipe\n');
    loom.end();
    try {
      await loom.waitFor(/Session \S+ saved/, 30_000);
      expect(await loom.exited).toEqual({ code: 0, signal: null });
    } finally {
      if (loom.child.exitCode === null) loom.child.kill('SIGKILL');
    }
    expect(loom.stdout()).toContain('Assistant: The pipe cannot be written.');
    const toolMessage = nth(ctx.server.requests, 1).body.messages.find((m: any) => m.role === 'tool');
    expect(toolMessage.content).toContain(`Error: ${FIFO_ERROR}`);
    expect(fs.lstatSync(pipe).isFIFO()).toBe(true);
  });
});

describe('Guarantee 2 end to end: the browser-mode server', () => {
  const TOKEN = 'g2-token';

  it('answers other requests while a turn writes to a FIFO, and the turn ends with the tool error', async () => {
    const root = tempDir('loom-g2-web-');
    const projectDir = path.join(root, 'project');
    fs.mkdirSync(projectDir);
    execFileSync('mkfifo', [path.join(projectDir, 'pipe')]);
    const reader = spawn('cat', ['pipe'], { cwd: projectDir, stdio: ['ignore', 'pipe', 'ignore'] });
    children.add(reader);
    let readerGot = '';
    reader.stdout.on('data', (d: Buffer) => (readerGot += d.toString()));
    const model = await startScriptedServer();
    let resume = () => {};
    const held = new Promise<void>((resolve) => (resume = resolve));
    const web = await startBrowserMode({
      dataDir: path.join(root, 'data'),
      staticDir: null,
      port: 0,
      projectDir,
      env: {},
      token: TOKEN,
      overrides: { baseUrl: model.baseUrl, model: 'gemma4', apiKey: '', mode: 'acceptEdits' },
    });
    const post = async (method: string, input: unknown) => {
      const res = await request(web.server.port, {
        method: 'POST',
        path: `/api/${method}`,
        headers: { host: `127.0.0.1:${web.server.port}`, 'x-loom-token': TOKEN, 'content-type': 'application/json' },
        body: JSON.stringify(input),
      });
      return { status: res.status, answer: JSON.parse(res.body) };
    };
    try {
      const session = (await post('chat.create', {})).answer.value;
      model.enqueue(
        { toolCalls: [{ name: 'write_file', arguments: { path: 'pipe', content: 'hello\n' } }] },
        { text: 'The pipe cannot be written.', pauseAfterChunks: 1, resume: held },
        { text: 'Pipe' },
      );
      const turn = post('chat.send', { sessionId: session.id, text: 'write hello into the pipe' });
      await model.waitForRequests(2); // the tool has run and its result is with the model
      expect(await post('app.info', {})).toMatchObject({ status: 200, answer: { ok: true } });
      expect(await post('chat.context', { sessionId: session.id })).toMatchObject({ status: 200, answer: { ok: true, value: { busy: true } } });
      resume();
      expect(await turn).toEqual({ status: 200, answer: { ok: true, value: { error: null } } });
      const toolMessage = nth(model.requests, 1).body.messages.find((m: any) => m.role === 'tool');
      expect(toolMessage.content).toContain(`Error: ${FIFO_ERROR}`);
      expect(await post('chat.changes', { sessionId: session.id })).toEqual({ status: 200, answer: { ok: true, value: { files: [] } } });
    } finally {
      resume();
      await web.close();
      await model.close();
      await stop(reader);
      fs.rmSync(root, { recursive: true, force: true });
    }
    expect(readerGot).toBe('');
  });
});
