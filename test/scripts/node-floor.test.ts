/**
 * Loom's Node floor is package.json's engines: `loom` (bin/loom.js) refuses an older Node
 * in one line before its bundle loads, and `npm test` wants the toolchain's Node of .nvmrc.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

const engines = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { engines: { node: string } }).engines.node;

/** A Node older than the floor installed on this machine (Debian's, beside the toolchain's), if any. */
function olderNode(): { file: string; version: string } | null {
  for (const file of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!fs.existsSync(file)) continue;
    const version = spawnSync(file, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    const [major = 0, minor = 0] = version.split('.').map(Number);
    if (major < 22 || (major === 22 && minor < 12)) return { file, version };
  }
  return null;
}
const older = olderNode();

describe('the Node floor', () => {
  it('is the same in bin/loom.js as in package.json engines', () => {
    const floor = /const MIN_NODE = \[(\d+), (\d+)\];/.exec(fs.readFileSync('bin/loom.js', 'utf8'));
    expect(engines).toBe(`>=${floor?.[1]}.${floor?.[2]}`);
  });

  it('is the toolchain Node of .nvmrc: the tests run on it', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(Number(fs.readFileSync('.nvmrc', 'utf8').trim()));
  });

  it.skipIf(older === null)(`refuses an older Node in one line that says what to install (${older?.file ?? 'no older Node here'})`, () => {
    const { file, version } = older!;
    const loom = spawnSync(file, ['bin/loom.js', '--list-sessions'], { encoding: 'utf8' });
    expect(loom.status).toBe(1);
    expect(loom.stdout).toBe('');
    expect(loom.stderr).toBe(
      `loom: needs Node.js 22.12 or newer, and this is ${version}: install Node.js 24 LTS (https://nodejs.org/, or \`nvm install 24\`).\n`,
    );
    for (const script of ['scripts/start.mjs', 'scripts/web.mjs']) {
      const started = spawnSync(file, [script, '--no-build'], { encoding: 'utf8' });
      expect(started.status).toBe(1);
      expect(started.stderr).toBe(loom.stderr);
    }
    const check = spawnSync(file, ['scripts/check-prerequisites.mjs'], { encoding: 'utf8', env: process.env });
    expect(check.status).toBe(1);
    expect(check.stderr.trim().split('\n')).toHaveLength(1);
    expect(check.stderr).toContain(`Node.js 24 LTS (this is ${version}; install it from https://nodejs.org/ or with \`nvm install 24\`)`);
  });
});
