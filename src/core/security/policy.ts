/**
 * Hard policy that no permission mode overrides: file tools stay inside the project folder,
 * and run_bash refuses the commands on the shell denylist (shell-policy.ts).
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { LoomError } from '../errors';

export { checkShellCommand, type ShellVerdict } from './shell-policy';

/** Symlink hops followed before giving up (the kernel's own limit is 40). */
const MAX_SYMLINK_HOPS = 40;

/**
 * The real absolute path `p` names, relative to the project folder, with `..` and every
 * symlink resolved the way the kernel would (a `..` after a symlink leaves the link's
 * target, not the link). A path that does not exist yet resolves through its deepest
 * existing ancestor, so a new file under a symlinked folder is judged by where it would
 * really land. A dangling symlink is followed to where writing through it would create
 * its target. LoomError when the result is outside the project folder.
 *
 * This only says where `p` lands; it opens nothing. Whoever reads or writes the result
 * opens it through project-fs.ts, which refuses any component that has become a symlink
 * since, so a swap between this check and the use cannot lead out.
 */
export async function resolveInsideProject(projectDir: string, p: string): Promise<string> {
  if (p.includes('\0')) throw new LoomError(`Path "${p.replace(/\0/g, '\\0')}" is not a valid path.`);
  const root = await fsp.realpath(projectDir);
  const resolved = await resolveReal(root, p, { hops: 0 });
  if (!isInside(root, resolved)) throw new LoomError(`Path "${p}" is outside the project folder.`);
  return resolved;
}

function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}

/** Walks `p` segment by segment from `base` (or from `/` when absolute), without lexical shortcuts. */
async function resolveReal(base: string, p: string, state: { hops: number }): Promise<string> {
  let current = path.isAbsolute(p) ? path.parse(path.resolve(p)).root : base;
  for (const segment of p.split(path.sep === '\\' ? /[\\/]/ : '/')) {
    if (segment === '' || segment === '.') continue;
    current = segment === '..' ? path.dirname(current) : await follow(path.join(current, segment), state);
  }
  return current;
}

/** One path step: a symlink is replaced by its target, resolved in turn. */
async function follow(candidate: string, state: { hops: number }): Promise<string> {
  let stat: Awaited<ReturnType<typeof fsp.lstat>>;
  try {
    stat = await fsp.lstat(candidate);
  } catch {
    return candidate; // does not exist (yet): nothing below it can be a symlink
  }
  if (!stat.isSymbolicLink()) return candidate;
  if (++state.hops > MAX_SYMLINK_HOPS) throw new LoomError(`Path "${candidate}" has too many levels of symbolic links.`);
  // Replaced by something else since the lstat: judged as a plain name; the open re-checks it.
  const target = await fsp.readlink(candidate).catch(() => null);
  if (target === null) return candidate;
  return resolveReal(path.dirname(candidate), target, state);
}
