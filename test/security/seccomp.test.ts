/**
 * The seccomp program is run here through a small classic-BPF interpreter (the subset the
 * filter uses), so both architectures' tables are checked, not only the one this machine
 * runs; test/adversarial/shell-sandbox.test.ts loads the real one into the kernel.
 */
import { describe, expect, test } from 'vitest';
import { noSetIdFilter } from '../../src/core/security/seccomp';

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const ENOSYS = 0x00050026;
const AUDIT = { x64: 0xc000003e, arm64: 0xc00000b7, i386: 0x40000003 };

/** Runs the filter on one system call: what the kernel would decide. */
function decide(filter: Buffer, arch: number, nr: number, args: number[] = []): number {
  const data = (offset: number) => (offset === 0 ? nr : offset === 4 ? arch : (args[(offset - 16) / 8] ?? 0) >>> 0);
  let a = 0;
  for (let pc = 0; pc * 8 < filter.length; pc++) {
    const code = filter.readUInt16LE(pc * 8);
    const jt = filter.readUInt8(pc * 8 + 2);
    const jf = filter.readUInt8(pc * 8 + 3);
    const k = filter.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) a = data(k);
    else if (code === 0x15) pc += a === k ? jt : jf;
    else if (code === 0x45) pc += (a & k) !== 0 ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`instruction ${code.toString(16)} not expected in this filter`);
  }
  throw new Error('the filter ran off its end');
}

describe('noSetIdFilter', () => {
  const x64 = noSetIdFilter('x64')!;
  const arm64 = noSetIdFilter('arm64')!;

  test('x86_64: set-id modes refused on every chmod and file creation, others allowed', () => {
    // chmod(path, 04755), fchmod(fd, 02755), fchmodat(dirfd, path, 06755), fchmodat2, open, openat, creat, mknod, mknodat
    for (const [nr, modeArg] of [
      [90, 1],
      [91, 1],
      [268, 2],
      [452, 2],
      [2, 2],
      [257, 3],
      [85, 1],
      [133, 1],
      [259, 2],
    ] as const) {
      const withMode = (mode: number) => Object.assign(new Array(4).fill(0), { [modeArg]: mode });
      expect(decide(x64, AUDIT.x64, nr, withMode(0o4755)), `nr ${nr}`).toBe(EPERM);
      expect(decide(x64, AUDIT.x64, nr, withMode(0o2755)), `nr ${nr}`).toBe(EPERM);
      expect(decide(x64, AUDIT.x64, nr, withMode(0o755)), `nr ${nr}`).toBe(ALLOW);
    }
    expect(decide(x64, AUDIT.x64, 0, [3, 0, 100])).toBe(ALLOW); // read
  });

  test('x86_64: openat2 and io_uring, x32 and 32-bit calls are refused whole', () => {
    expect(decide(x64, AUDIT.x64, 437)).toBe(ENOSYS);
    expect(decide(x64, AUDIT.x64, 425)).toBe(ENOSYS);
    expect(decide(x64, AUDIT.x64, 0x40000000 | 90, [0, 0o755])).toBe(ENOSYS);
    expect(decide(x64, AUDIT.i386, 15, [0, 0o4755])).toBe(ENOSYS);
  });

  test('aarch64 has a table of its own', () => {
    expect(decide(arm64, AUDIT.arm64, 53, [0, 0, 0o4755])).toBe(EPERM); // fchmodat
    expect(decide(arm64, AUDIT.arm64, 56, [0, 0, 0o101, 0o6755])).toBe(EPERM); // openat with O_CREAT
    expect(decide(arm64, AUDIT.arm64, 56, [0, 0, 0o101, 0o644])).toBe(ALLOW);
    expect(decide(arm64, AUDIT.arm64, 90, [0, 0o4755])).toBe(ALLOW); // 90 is not chmod there
    expect(decide(arm64, AUDIT.x64, 53, [0, 0, 0o755])).toBe(ENOSYS);
  });

  test('no filter for an architecture it does not know', () => {
    expect(noSetIdFilter('ppc64')).toBeNull();
  });
});
