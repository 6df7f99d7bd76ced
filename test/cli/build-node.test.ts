/**
 * scripts/build-node.mjs keeps dist/chunks/<entries>/ from piling up: a build deletes the
 * chunks that neither it nor the build before it wrote, and leaves the previous build's,
 * which a `loom` started from it may still import (docs/ARCHITECTURE.md#the-node-build).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, expect, it } from 'vitest';
import { ROOT, buildLoom, runLoom } from './run-loom';

const CHUNKS = path.join(ROOT, 'dist', 'chunks', 'cli');
const built = () => fs.readFileSync(path.join(CHUNKS, '.built'), 'utf8').split('\n').filter(Boolean);

beforeAll(buildLoom, 120_000);

it('a build deletes chunks older than the previous build, keeps the previous build’s, and loom still runs', async () => {
  const stale = path.join(CHUNKS, 'chunk-STALE000.js');
  const previous = path.join(CHUNKS, 'chunk-PREVIOUS.js');
  fs.writeFileSync(stale, '// left by a build two builds ago\n');
  fs.writeFileSync(previous, '// written by the build before this one\n');
  fs.writeFileSync(path.join(CHUNKS, '.built'), `${[...built(), 'chunk-PREVIOUS.js'].join('\n')}\n`);

  await promisify(execFile)(process.execPath, [path.join(ROOT, 'scripts', 'build-node.mjs')], { cwd: ROOT });

  expect(fs.existsSync(stale)).toBe(false);
  expect(fs.existsSync(previous)).toBe(true);
  const current = built();
  expect(current).not.toContain('chunk-PREVIOUS.js');
  for (const name of current) expect(fs.existsSync(path.join(CHUNKS, name))).toBe(true);

  // The next build forgets the one before: the chunk it listed goes.
  await promisify(execFile)(process.execPath, [path.join(ROOT, 'scripts', 'build-node.mjs')], { cwd: ROOT });
  expect(fs.existsSync(previous)).toBe(false);
  expect((await runLoom(['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
}, 120_000);
