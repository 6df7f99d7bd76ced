/**
 * What this machine can check of the packaged desktop app without Electron's binary
 * (docs/RELEASING.md): the electron-builder config against electron-builder's own JSON
 * schema, and the fuses our afterPack hook flips, in a file laid out like Electron's
 * fuse wire (the sentinel, a version, a length, one byte per fuse).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FuseState, FuseV1Options, getCurrentFuseWire } from '@electron/fuses';
import Ajv from 'ajv';
// @ts-expect-error -- electron-builder's file matcher, plain CommonJS without types
import { getNodeModuleFileMatcher } from 'app-builder-lib/out/fileMatcher.js';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs module (electron-builder loads it), no types
import afterPack, { packedBinary } from '../../packaging/after-pack.mjs';

const config = JSON.parse(fs.readFileSync('electron-builder.json', 'utf8')) as Record<string, unknown>;
const schema = JSON.parse(fs.readFileSync('node_modules/app-builder-lib/scheme.json', 'utf8')) as object;
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
const FUSE_COUNT = 9;
let dir = '';
afterEach(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

/** A stand-in for a packed Linux Electron: random bytes around a fuse wire with every fuse at Electron's defaults. */
function fakeElectron(): { appOutDir: string; file: string } {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-fuses-'));
  const wire = Buffer.concat([Buffer.from(SENTINEL), Buffer.from([1, FUSE_COUNT]), Buffer.from('101001011')]);
  const file = path.join(dir, 'loom-desktop');
  fs.writeFileSync(file, Buffer.concat([Buffer.alloc(4096, 7), wire, Buffer.alloc(4096, 9)]));
  return { appOutDir: dir, file };
}

/**
 * Whether electron-builder packs node_modules/<file> for a target: its own matcher, with
 * the config's patterns and its macros expanded as it expands them.
 */
function nodeModulesFilter(platform: string, arch: string): (file: string) => boolean {
  const expand = (pattern: string) => pattern.replaceAll('${platform}', platform).replaceAll('${arch}', arch);
  const packager = { config, debugLogger: { isEnabled: false } };
  const filter = getNodeModuleFileMatcher('/app', '/packed', expand, {}, packager).createFilter();
  return (file) => filter(`/app/node_modules/${file}`, { isDirectory: () => false });
}

describe('electron-builder config', () => {
  it('passes electron-builder’s schema, which rejects a misspelt option', () => {
    expect(validate(config), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...config, nsis: { oneclick: false } })).toBe(false);
  });

  it('builds AppImage and .deb, .dmg for x64 and arm64, and an NSIS installer', () => {
    const { linux, mac, win } = config as {
      linux: { target: string[] };
      mac: { target: { target: string; arch: string[] }[] };
      win: { target: { target: string }[] };
    };
    expect(linux.target).toEqual(['AppImage', 'deb']);
    expect(mac.target.find((t) => t.target === 'dmg')?.arch).toEqual(['x64', 'arm64']);
    expect(win.target.map((t) => t.target)).toEqual(['nsis']);
  });

  it('ships better-sqlite3 with only the target’s Node-API build, unpacked, and rebuilds nothing', () => {
    expect(config.npmRebuild).toBe(false);
    expect(config.asarUnpack).toContain('**/*.node');
    const builds = ['linux-x64', 'linux-arm64', 'linuxmusl-x64', 'darwin-x64', 'darwin-arm64', 'win32-x64', 'win32-arm64'];
    for (const [platform, arch] of [
      ['linux', 'x64'],
      ['darwin', 'x64'],
      ['darwin', 'arm64'],
      ['win32', 'x64'],
    ] as const) {
      const packs = nodeModulesFilter(platform, arch);
      expect(builds.filter((build) => packs(`better-sqlite3/prebuilds/${build}.node`))).toEqual([`${platform}-${arch}`]);
      expect(packs('better-sqlite3/lib/index.js')).toBe(true);
      expect(packs('better-sqlite3/deps/sqlite3/sqlite3.c')).toBe(false);
      expect(packs('better-sqlite3/src/better_sqlite3.cpp')).toBe(false);
    }
  });

  it('opens Loom session files, and flips the fuses after packing', () => {
    expect(config.fileAssociations).toEqual([expect.objectContaining({ ext: 'loom' })]);
    expect(config.afterPack).toBe('./packaging/after-pack.mjs');
  });
});

describe('the afterPack hook', () => {
  it('turns off run-as-node, NODE_OPTIONS and --inspect, and turns on cookie encryption and ASAR-only loading with integrity checks', async () => {
    const { appOutDir, file } = fakeElectron();
    const context = { appOutDir, electronPlatformName: 'linux', arch: 1, packager: { executableName: 'loom-desktop', appInfo: { productFilename: 'Loom' } } };
    expect(packedBinary(context)).toBe(file);

    await afterPack(context);

    const fuses = await getCurrentFuseWire(file);
    expect(fuses[FuseV1Options.RunAsNode]).toBe(FuseState.DISABLE);
    expect(fuses[FuseV1Options.EnableNodeOptionsEnvironmentVariable]).toBe(FuseState.DISABLE);
    expect(fuses[FuseV1Options.EnableNodeCliInspectArguments]).toBe(FuseState.DISABLE);
    expect(fuses[FuseV1Options.EnableCookieEncryption]).toBe(FuseState.ENABLE);
    expect(fuses[FuseV1Options.EnableEmbeddedAsarIntegrityValidation]).toBe(FuseState.ENABLE);
    expect(fuses[FuseV1Options.OnlyLoadAppFromAsar]).toBe(FuseState.ENABLE);
    // Only the wire changed: the bytes around it are as they were.
    const bytes = fs.readFileSync(file);
    expect(bytes.subarray(0, 4096).every((b) => b === 7)).toBe(true);
    expect(bytes.subarray(bytes.length - 4096).every((b) => b === 9)).toBe(true);
  });

  it('names the binary inside the .app on macOS and the .exe on Windows', () => {
    const packager = { executableName: 'loom-desktop', appInfo: { productFilename: 'Loom' } };
    expect(packedBinary({ appOutDir: '/o', electronPlatformName: 'darwin', packager })).toBe(path.join('/o', 'Loom.app'));
    expect(packedBinary({ appOutDir: '/o', electronPlatformName: 'win32', packager })).toBe(path.join('/o', 'Loom.exe'));
  });
});
