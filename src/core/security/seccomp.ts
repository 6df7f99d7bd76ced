/**
 * A seccomp filter for the shell sandbox (bubblewrap loads it with `--seccomp FD`): no
 * setuid or setgid bit can be set on a file. A sandboxed command keeps Loom's uid, so when
 * Loom runs as root it could otherwise leave a setuid-root program in the project folder
 * (`cp /bin/sh x && chmod u+s x`) for anyone on the host to run later.
 *
 * The filter refuses with EPERM every chmod, file creation (open/creat/mknod) whose mode
 * carries S_ISUID or S_ISGID, and refuses openat2 (its mode sits behind a pointer a filter
 * cannot read; callers fall back to openat) and io_uring (whose operations bypass seccomp)
 * with ENOSYS. System calls of another ABI (32-bit programs on x86_64) are refused whole,
 * since their numbers differ. Only x86_64 and aarch64 are known; elsewhere there is no filter.
 */

const SECCOMP_DATA_NR = 0;
const SECCOMP_DATA_ARCH = 4;
const SECCOMP_DATA_ARGS = 16;

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JSET_K = 0x45;
const BPF_RET_K = 0x06;

const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;

/** x32 system calls on x86_64 carry this bit. */
const X32_SYSCALL_BIT = 0x40000000;
const SET_ID_BITS = 0o6000;

interface SyscallTable {
  audit: number;
  /** System call number → index of the argument that holds a file mode. */
  modes: Record<number, number>;
  refused: number[];
}

const TABLES: Record<string, SyscallTable> = {
  x64: {
    audit: 0xc000003e,
    // chmod, fchmod, fchmodat, fchmodat2, open, openat, creat, mknod, mknodat
    modes: { 90: 1, 91: 1, 268: 2, 452: 2, 2: 2, 257: 3, 85: 1, 133: 1, 259: 2 },
    refused: [437, 425], // openat2, io_uring_setup
  },
  arm64: {
    audit: 0xc00000b7,
    // fchmod, fchmodat, fchmodat2, openat, mknodat
    modes: { 52: 1, 53: 2, 452: 2, 56: 3, 33: 2 },
    refused: [437, 425],
  },
};

type Instruction = { code: number; jt: number; jf: number; k: number };

/** The compiled filter for this machine's architecture, or null where none is known. */
export function noSetIdFilter(arch: string = process.arch): Buffer | null {
  const table = TABLES[arch];
  if (!table) return null;
  const program: Instruction[] = [];
  const emit = (code: number, k: number, jt = 0, jf = 0) => program.push({ code, jt, jf, k });
  const deny = RET_ERRNO | EPERM;

  emit(BPF_LD_W_ABS, SECCOMP_DATA_ARCH);
  emit(BPF_JEQ_K, table.audit, 1, 0);
  emit(BPF_RET_K, RET_ERRNO | ENOSYS);
  emit(BPF_LD_W_ABS, SECCOMP_DATA_NR);
  if (arch === 'x64') {
    emit(BPF_JSET_K, X32_SYSCALL_BIT, 0, 1);
    emit(BPF_RET_K, RET_ERRNO | ENOSYS);
  }
  for (const nr of table.refused) {
    emit(BPF_JEQ_K, nr, 0, 1);
    emit(BPF_RET_K, RET_ERRNO | ENOSYS);
  }
  for (const [nr, argIndex] of Object.entries(table.modes)) {
    // if (nr == N) { A = low word of the mode argument; return (A & 06000) ? EPERM : ALLOW; }
    emit(BPF_JEQ_K, Number(nr), 0, 4);
    emit(BPF_LD_W_ABS, SECCOMP_DATA_ARGS + 8 * argIndex);
    emit(BPF_JSET_K, SET_ID_BITS, 0, 1);
    emit(BPF_RET_K, deny);
    emit(BPF_RET_K, RET_ALLOW);
  }
  emit(BPF_RET_K, RET_ALLOW);
  return encode(program);
}

/** struct sock_filter, little-endian (both known architectures are). */
function encode(program: Instruction[]): Buffer {
  const out = Buffer.alloc(program.length * 8);
  program.forEach(({ code, jt, jf, k }, i) => {
    out.writeUInt16LE(code, i * 8);
    out.writeUInt8(jt, i * 8 + 2);
    out.writeUInt8(jf, i * 8 + 3);
    out.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return out;
}
