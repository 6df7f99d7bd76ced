import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandboxAvailable } from '../../src/core/security/sandbox';
import { parseToolArguments } from '../../src/core/tools/arguments';
import { clipMiddle, runBashTool } from '../../src/core/tools/shell-tool';
import { call, makeHarness, type Harness } from './support';

let h: Harness;
beforeEach(() => {
  h = makeHarness();
});
afterEach(() => h.cleanup());

describe('run_bash', () => {
  it('reports exit code, stdout and stderr, running in the project folder', async () => {
    const out = await call(runBashTool, { command: 'pwd; echo oops >&2; exit 3' }, h.ctx);
    expect(out).toMatch(new RegExp(`^Exit code: 3\\n--- stdout ---\\n${h.projectDir}\\n--- stderr ---\\noops\\n\\[Sandbox: .+\\]$`));
  });

  it('says when there was no output', async () => {
    expect(await call(runBashTool, { command: 'true' }, h.ctx)).toMatch(/^Exit code: 0\n\(no output\)\n\[Sandbox: /);
  });

  it('stops a command at the tool timeout and says so', async () => {
    const out = await call(runBashTool, { command: 'echo started; sleep 30' }, { ...h.ctx, toolTimeoutMs: 500 });
    expect(out).toContain('Exit code: none (the process was killed)');
    expect(out).toContain('started');
    expect(out).toContain('[Timed out after 1 s; the command was stopped.]');
  });

  it('stops when the turn is cancelled', async () => {
    const controller = new AbortController();
    const running = call(runBashTool, { command: 'sleep 30' }, { ...h.ctx, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    expect(await running).toContain('[Stopped: the user cancelled the turn.]');
  });

  it('refuses denylisted commands without running them', async () => {
    h.write('keep.txt', 'x');
    await expect(call(runBashTool, { command: 'sudo rm -rf /' }, h.ctx)).rejects.toThrow(/^Blocked by policy \(.+\): this command is never run\.$/);
    expect(fs.existsSync(path.join(h.projectDir, 'keep.txt'))).toBe(true);
  });

  it.runIf(sandboxAvailable())('writes only inside the project folder when sandboxed, with no network', async () => {
    // The home folder is hidden behind an empty tmpfs, so the folder is not even there.
    const outside = fs.mkdtempSync(path.join(os.homedir(), '.loom-bash-outside-'));
    try {
      const out = await call(runBashTool, { command: `touch inside.txt; touch ${outside}/evil.txt; touch /usr/loom-evil.txt` }, h.ctx);
      expect(out).toContain(
        '[Sandbox: only the project folder keeps what is written; the home folder (but for toolchains on PATH), /tmp, /var and /run are private and start empty; network off.]',
      );
      expect(fs.existsSync(path.join(h.projectDir, 'inside.txt'))).toBe(true);
      expect(fs.existsSync(path.join(outside, 'evil.txt'))).toBe(false);
      expect(fs.existsSync('/usr/loom-evil.txt')).toBe(false);
      expect(out).toContain(`touch: cannot touch '${outside}/evil.txt': No such file or directory`);
      expect(out).toMatch(/Read-only file system/);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('keeps the head and tail of long output', async () => {
    const out = await call(runBashTool, { command: 'echo FIRST; seq 1 20000; echo LAST' }, h.ctx);
    expect(out).toContain('FIRST');
    expect(out).toContain('LAST');
    expect(out).toMatch(/\[… \d+ characters cut …\]/);
    expect(out.length).toBeLessThan(16_000);
    expect(clipMiddle('abcdef', 4)).toBe('ab\n[… 2 characters cut …]\nef');
  });

  it('bounds the command', () => {
    expect(parseToolArguments(runBashTool, '{"command":""}')).toMatchObject({ ok: false, error: expect.stringContaining('command:') });
    expect(parseToolArguments(runBashTool, JSON.stringify({ command: 'x'.repeat(20_001) }))).toMatchObject({ ok: false });
    expect(parseToolArguments(runBashTool, '{"command":"ls","cwd":"/"}')).toMatchObject({
      ok: false,
      error: expect.stringContaining('unknown field "cwd"'),
    });
  });
});
