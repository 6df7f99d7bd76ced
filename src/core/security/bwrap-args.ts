/**
 * The bubblewrap command line: exactly what a sandboxed run_bash command can see, write
 * and do (docs/SECURITY.md, guarantee 5, lists it for users).
 *
 * - The system (/usr, /etc, /opt, /bin, /lib…) is visible read-only: that is the toolchain.
 * - Folders of per-user and service data are replaced by empty, private tmpfs mounts: the
 *   home folder, /home, /root, /var, /run, /tmp, /srv, /mnt and /media. They hold the
 *   secrets and the Unix sockets (databases, docker, dbus) that a read-only mount would
 *   still let a process read or connect to.
 * - Back on top of them, read-only: the install roots of toolchains on PATH that live in a
 *   hidden folder (~/.pyenv for ~/.pyenv/shims, ~/.cargo for ~/.cargo/bin), the user's git
 *   configuration (commit identity), and, with network allowed, the resolver's folder.
 * - The project folder is mounted last, read-write, wherever it lives.
 * - Every capability is dropped and, where the kernel allows, the command runs in a user
 *   namespace of its own that may not create further ones. Root inside is therefore still
 *   uid 0 for file ownership but cannot mount, /proc's kernel knobs (writable by uid 0
 *   without any capability) are read-only, and a seccomp filter (seccomp.ts) keeps it from
 *   leaving setuid programs behind.
 */
import path from 'node:path';

export interface SandboxView {
  /** The project folder: the one writable place; null for the availability probe. */
  project: string | null;
  network: boolean;
  /** The user's home folder ($HOME), hidden with the rest. */
  home?: string;
  /** The command's PATH, whose toolchains in hidden folders stay visible. */
  searchPath?: string;
  /** The real folder of /etc/resolv.conf's target, needed for DNS when network is allowed. */
  resolverDir?: string;
  /** Put the command in a user namespace of its own (false where the kernel refuses one). */
  userNamespace: boolean;
  /** The descriptor bubblewrap reads the seccomp filter from (seccomp.ts), if there is one. */
  seccompFd?: number;
}

/** Per-user and service data: hidden behind an empty tmpfs. */
export const HIDDEN_FOLDERS = ['/home', '/root', '/var', '/run', '/tmp', '/srv', '/mnt', '/media'];

/**
 * Files in a fresh /proc that uid 0 may write without any capability: sysctls (some of
 * them, like kernel.core_pattern, run programs as the host's root), sysrq, IRQ and bus
 * settings. A sandboxed root keeps uid 0, so they are made read-only.
 */
const PROC_KNOBS = ['/proc/sys', '/proc/sysrq-trigger', '/proc/irq', '/proc/bus', '/proc/fs'];

/** Git's per-user configuration files, relative to the home folder. */
const GIT_CONFIG = ['.gitconfig', '.config/git'];

export function bwrapArgs(view: SandboxView): string[] {
  const home = usableHome(view.home);
  const hidden = hiddenFolders(home);
  return [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    ...PROC_KNOBS.flatMap((knob) => ['--ro-bind-try', knob, knob]),
    ...hidden.flatMap((folder) => ['--tmpfs', folder]),
    ...readOnlyExceptions(view, home, hidden).flatMap((p) => ['--ro-bind-try', p, p]),
    ...(view.project ? ['--bind', view.project, view.project, '--chdir', view.project] : []),
    '--unshare-all',
    ...(view.userNamespace ? ['--unshare-user', '--disable-userns'] : []),
    ...(view.network ? ['--share-net'] : []),
    '--cap-drop',
    'ALL',
    ...(view.seccompFd === undefined ? [] : ['--seccomp', String(view.seccompFd)]),
    '--die-with-parent',
    '--new-session',
  ];
}

/** An absolute home folder other than `/`, without a trailing slash. */
function usableHome(home: string | undefined): string | undefined {
  if (!home || !path.isAbsolute(home)) return undefined;
  const normal = path.normalize(home).replace(/(.)\/$/, '$1');
  return normal === '/' ? undefined : normal;
}

/** The fixed folders, plus the home folder when it lives elsewhere (/Users/ann, /data/home/ann). */
function hiddenFolders(home: string | undefined): string[] {
  const outside = home && !HIDDEN_FOLDERS.some((f) => isWithin(home, f));
  return outside ? [...HIDDEN_FOLDERS, home] : [...HIDDEN_FOLDERS];
}

/** What comes back, read-only, from under the hidden folders. */
function readOnlyExceptions(view: SandboxView, home: string | undefined, hidden: string[]): string[] {
  // The home folder counts as a folder of its own even inside /home or /tmp: a toolchain
  // in it exposes its install root, never the whole home.
  const containers = home ? [...hidden, home] : hidden;
  const toolchains = (view.searchPath ?? '').split(':').flatMap((entry) => {
    const root = toolchainRoot(entry, containers);
    return root ? [root] : [];
  });
  const gitConfig = home ? GIT_CONFIG.map((name) => path.join(home, name)) : [];
  const resolver = view.network && view.resolverDir && hidden.some((f) => isWithin(view.resolverDir!, f)) ? [view.resolverDir] : [];
  return [...new Set([...toolchains, ...gitConfig, ...resolver])];
}

/**
 * The install root of a PATH folder inside a hidden folder: the first folder below the
 * innermost hidden one or the home folder (~/.pyenv for ~/.pyenv/shims). A PATH entry
 * that is such a folder itself (PATH=$HOME:…) exposes nothing.
 */
function toolchainRoot(entry: string, containers: string[]): string | null {
  if (!path.isAbsolute(entry)) return null;
  const normal = path.normalize(entry);
  const container = containers.filter((f) => isWithin(normal, f)).sort((a, b) => b.length - a.length)[0];
  if (!container) return null;
  const first = path.relative(container, normal).split(path.sep)[0];
  return first && first !== '..' ? path.join(container, first) : null;
}

function isWithin(p: string, folder: string): boolean {
  return p === folder || p.startsWith(folder.endsWith('/') ? folder : `${folder}/`);
}
