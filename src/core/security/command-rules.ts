/**
 * The command lists the shell policy reads, in one place: the names the denylist
 * (shell-policy.ts) judges, and the commands known to be safe enough to run in the sandbox
 * without asking (known-safe.ts). Code decides how a list is applied; this file only says
 * what is on it, so reviewing the policy means reading one file of data.
 */

// ── The denylist's names ──────────────────────────────────────────────────────────────

export const PRIVILEGE = new Set(['sudo', 'su', 'doas', 'pkexec', 'sudoedit', 'run0', 'runuser']);
export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh']);
export const INTERPRETERS = new Set(['python', 'python3', 'python2', 'perl', 'ruby', 'node', 'php']);
export const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'aria2c', 'http', 'https', 'lwp-request']);
export const POWER = new Set(['shutdown', 'reboot', 'halt', 'poweroff']);
export const POWER_VERBS = new Set(['reboot', 'poweroff', 'halt', 'kexec', 'shutdown']);
export const FILESYSTEM_FORMATTERS = /^mkfs(\..*)?$|^mke2fs$|^mkswap$|^wipefs$/;
/** Words bash reads before a command's name that are not the command. */
export const KEYWORDS = new Set(['!', '{', '}', 'then', 'do', 'else', 'elif', 'if', 'while', 'until', 'time', 'coproc']);
/** Commands that run their arguments (or their input) as a command line of their own. */
export const SCRIPT_RUNNERS = new Set(['source', '.', 'eval']);
/** Paths that name standard input: a shell reading one reads its script from a pipe. */
export const STDIN_PATHS = new Set(['-', '/dev/stdin', '/dev/fd/0', '/proc/self/fd/0']);
export const OWNERSHIP_CHANGERS = ['chmod', 'chown', 'chgrp'];
/** Recursive forms of these are judged by the targets they are fed (xargs) or named. */
export const RECURSIVE_CHANGERS = ['rm', ...OWNERSHIP_CHANGERS];
export const FIND_EXEC_ACTIONS = ['-exec', '-execdir', '-ok', '-okdir'];
/** git's options before the subcommand that take the next word as their value. */
export const GIT_VALUE_GLOBALS = ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path'];
/** Where dd may write without being a disk. */
export const DD_HARMLESS_OUTPUTS = ['/dev/null', '/dev/zero', '/dev/stdout', '/dev/stderr', '/dev/tty'];

/** Top-level folders whose direct children are still system-wide (`/usr/lib`, `/home/ann`). */
export const SYSTEM_DIRS = new Set([
  'bin',
  'boot',
  'dev',
  'etc',
  'home',
  'lib',
  'lib32',
  'lib64',
  'libx32',
  'opt',
  'proc',
  'root',
  'run',
  'sbin',
  'srv',
  'sys',
  'usr',
  'var',
  'snap',
  'mnt',
  'media',
  'Users',
  'System',
  'Library',
]);
export const BLOCK_DEVICE = /^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|loop|dm-|md|sr|disk\/|mapper\/|mem$|kmem$|port$)/;

/**
 * Wrappers that run another command: their options (those listed take a value) and the
 * number of positional arguments before the wrapped command.
 */
export const WRAPPERS: Record<string, { valueOptions: string[]; positional?: number }> = {
  env: { valueOptions: ['-u', '--unset', '-C', '--chdir'] },
  nice: { valueOptions: ['-n', '--adjustment'] },
  timeout: { valueOptions: ['-s', '--signal', '-k', '--kill-after'], positional: 1 },
  nohup: { valueOptions: [] },
  command: { valueOptions: [] },
  builtin: { valueOptions: [] },
  exec: { valueOptions: ['-a'] },
  time: { valueOptions: ['-f', '--format', '-o', '--output'] },
  stdbuf: { valueOptions: ['-i', '-o', '-e'] },
  setsid: { valueOptions: [] },
  ionice: { valueOptions: ['-c', '-n', '-p', '-P', '-u'] },
  unbuffer: { valueOptions: [] },
  busybox: { valueOptions: [] },
  xargs: { valueOptions: ['-I', '-n', '-P', '-L', '-d', '-s', '-E', '-a', '--max-args', '--max-procs', '--delimiter', '--arg-file'] },
  flock: { valueOptions: ['-w', '--timeout', '-E', '--conflict-exit-code'], positional: 1 },
  watch: { valueOptions: ['-n', '--interval', '-d'] },
};

/** Commands that change the files they name, and which operands they change. */
export const WRITE_OPERANDS: Record<string, 'all' | 'last'> = {
  tee: 'all',
  touch: 'all',
  truncate: 'all',
  rm: 'all',
  rmdir: 'all',
  unlink: 'all',
  shred: 'all',
  mkdir: 'all',
  chmod: 'all',
  chown: 'all',
  chgrp: 'all',
  chattr: 'all',
  setfacl: 'all',
  mv: 'all',
  cp: 'last',
  install: 'last',
  rsync: 'last',
  ln: 'last',
  scp: 'last',
};

// ── Known-safe commands ───────────────────────────────────────────────────────────────

/**
 * What an option's value (or a leading operand) must be:
 * - `count`: a number, optionally signed or with a size suffix (`-n 20`, `-c 1K`);
 * - `text`: anything; it is a pattern or a filter, never opened as a file;
 * - `when`: a colour choice;
 * - `project-file`: a regular file inside the project folder (`grep -f patterns.txt`);
 * - `sed-script`: a sed script that only prints (sed-script.ts).
 */
export type SafeValue = 'count' | 'text' | 'when' | 'project-file' | 'sed-script';

/**
 * An allowlist, never a denylist: an option not named here makes the command "not known
 * safe", so it is asked about as before. Only options whose value is required are listed
 * in `valued` (an optional value is only ever given with `=`, so such options, like
 * `--color`, are also in `longFlags`).
 */
export interface SafeCommandRule {
  /** Short options that take no value, as one string of letters. */
  shortFlags: string;
  longFlags: readonly string[];
  valued: Readonly<Record<string, SafeValue>>;
  /** What the remaining operands must be: nothing, regular files, or files and folders, all inside the project. */
  operands: 'none' | 'files' | 'files-or-folders';
  /** The first operand is a pattern or script, not a file, unless one of `unless` already gave it. */
  leading?: { value: SafeValue; unless: readonly string[] };
  /** One of these must be given (sed: -n, so nothing is printed but what the script prints). */
  requires?: readonly string[];
  /** Where `-20` means `-n 20` (head, tail). */
  countShorthand?: boolean;
}

const COLOR = { '--color': 'when', '--colour': 'when' } as const;

/** head and tail take the same options (tail's `-f`, which never ends, is left out). */
const HEAD_OR_TAIL: SafeCommandRule = {
  shortFlags: 'qvz',
  longFlags: ['--quiet', '--silent', '--verbose', '--zero-terminated'],
  valued: { '-n': 'count', '-c': 'count', '--lines': 'count', '--bytes': 'count' },
  operands: 'files',
  countShorthand: true,
};

/**
 * What each known-safe command may be given. None of these options runs a program,
 * writes a file, follows a symbolic link out of a folder it lists or searches, or reads
 * a file that is not an operand checked like the others. Left out on purpose:
 * rg `--pre`, `--pre-glob`, `-z`/`--search-zip` (run programs), `--hostname-bin`,
 * `-L`/`--follow` and grep `-R` (follow links out), `--ignore-file`, `--exclude-from`,
 * `--files0-from` (read unchecked files), tail `-f` (never ends), sed `-i`, `-f`.
 */
export const KNOWN_SAFE_COMMANDS: Readonly<Record<string, SafeCommandRule>> = {
  pwd: { shortFlags: 'LP', longFlags: [], valued: {}, operands: 'none' },
  ls: {
    shortFlags: '1aAbBcCdfFghiklmnNopqQrRsStuUvxX',
    longFlags: [
      '--all',
      '--almost-all',
      '--human-readable',
      '--classify',
      '--directory',
      '--recursive',
      '--reverse',
      '--size',
      '--group-directories-first',
      '--color',
      '--inode',
    ],
    valued: { '--color': 'when', '--sort': 'text', '--time-style': 'text' },
    operands: 'files-or-folders',
  },
  wc: { shortFlags: 'clmwL', longFlags: ['--bytes', '--chars', '--lines', '--words', '--max-line-length'], valued: {}, operands: 'files' },
  cat: {
    shortFlags: 'AbeEnstTuv',
    longFlags: ['--show-all', '--number', '--number-nonblank', '--squeeze-blank', '--show-ends', '--show-tabs', '--show-nonprinting'],
    valued: {},
    operands: 'files',
  },
  head: HEAD_OR_TAIL,
  tail: HEAD_OR_TAIL,
  grep: {
    shortFlags: 'iyvnclLwxEFGPoqshHrIaZzbTU',
    longFlags: [
      '--ignore-case',
      '--invert-match',
      '--line-number',
      '--count',
      '--files-with-matches',
      '--files-without-match',
      '--word-regexp',
      '--line-regexp',
      '--extended-regexp',
      '--fixed-strings',
      '--basic-regexp',
      '--perl-regexp',
      '--only-matching',
      '--quiet',
      '--silent',
      '--no-messages',
      '--no-filename',
      '--with-filename',
      '--recursive',
      '--text',
      '--null',
      '--null-data',
      '--byte-offset',
      '--color',
      '--colour',
    ],
    valued: {
      '-e': 'text',
      '--regexp': 'text',
      '-f': 'project-file',
      '--file': 'project-file',
      '-m': 'count',
      '--max-count': 'count',
      '-A': 'count',
      '-B': 'count',
      '-C': 'count',
      '--after-context': 'count',
      '--before-context': 'count',
      '--context': 'count',
      '--include': 'text',
      '--exclude': 'text',
      '--exclude-dir': 'text',
      ...COLOR,
    },
    operands: 'files-or-folders',
    leading: { value: 'text', unless: ['-e', '--regexp', '-f', '--file'] },
  },
  rg: {
    shortFlags: 'iSsvnNclwxFoqHIUPu0',
    longFlags: [
      '--files',
      '--hidden',
      '--no-ignore',
      '--ignore-case',
      '--smart-case',
      '--case-sensitive',
      '--invert-match',
      '--line-number',
      '--no-line-number',
      '--count',
      '--count-matches',
      '--files-with-matches',
      '--files-without-match',
      '--word-regexp',
      '--line-regexp',
      '--fixed-strings',
      '--only-matching',
      '--heading',
      '--no-heading',
      '--with-filename',
      '--no-filename',
      '--column',
      '--json',
      '--vimgrep',
      '--multiline',
      '--pcre2',
      '--quiet',
      '--stats',
      '--trim',
      '--no-messages',
      '--null',
    ],
    valued: {
      '-e': 'text',
      '--regexp': 'text',
      '-f': 'project-file',
      '--file': 'project-file',
      '-g': 'text',
      '--glob': 'text',
      '--iglob': 'text',
      '-t': 'text',
      '--type': 'text',
      '-T': 'text',
      '--type-not': 'text',
      '-A': 'count',
      '-B': 'count',
      '-C': 'count',
      '--after-context': 'count',
      '--before-context': 'count',
      '--context': 'count',
      '-m': 'count',
      '--max-count': 'count',
      '-d': 'count',
      '--max-depth': 'count',
      '-M': 'count',
      '--max-columns': 'count',
      '--sort': 'text',
      '--sortr': 'text',
      '--color': 'when',
    },
    operands: 'files-or-folders',
    leading: { value: 'text', unless: ['-e', '--regexp', '-f', '--file', '--files'] },
  },
  sed: {
    shortFlags: 'nErsuz',
    longFlags: ['--quiet', '--silent', '--regexp-extended', '--separate', '--unbuffered', '--null-data', '--posix', '--debug', '--sandbox'],
    valued: { '-e': 'sed-script', '--expression': 'sed-script', '-l': 'count', '--line-length': 'count' },
    operands: 'files',
    leading: { value: 'sed-script', unless: ['-e', '--expression'] },
    requires: ['-n', '--quiet', '--silent'],
  },
};

/**
 * git is read-only with these subcommands, and with no global option but --no-pager: `-c`,
 * `--config-env`, `-C`, `--git-dir`, `--work-tree`, `--exec-path`, `-p`/`--paginate` all
 * change what git runs or where it reads.
 */
export const GIT_READ_SUBCOMMANDS = new Set(['status', 'diff', 'log', 'show']);
export const GIT_SAFE_GLOBALS = new Set(['--no-pager', '-P']);
/**
 * Subcommand options that write a file, run an external diff or text converter, or
 * compare files outside the repository. git accepts any unambiguous prefix of a long
 * option (`--outp=…`), so a prefix of one of these counts as it.
 */
export const GIT_UNSAFE_LONG_OPTIONS = ['--output', '--ext-diff', '--textconv', '--no-index', '--exec'];
/** `-O<orderfile>` reads a file named on the command line. */
export const GIT_UNSAFE_SHORT_OPTIONS = ['-O'];
