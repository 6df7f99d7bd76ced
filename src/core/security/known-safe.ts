/**
 * Commands known to be safe: they read the project and print, so in the modes that ask
 * for commands they run (inside the sandbox, like every command) without asking. The
 * decision is made on the parsed command line, never on its text:
 *
 * 1. The tree (tree-sitter-bash) holds nothing but simple commands of plain words joined
 *    by `|`, `;`, `&&`, `||` or newlines: no redirection, substitution, expansion,
 *    assignment, subshell, background job, glob or tilde. Then every word is literal and
 *    the words shell-parse.ts reads are exactly what bash would pass.
 * 2. Every command is on the list in command-rules.ts, called by its bare name (not
 *    `./ls`), with only the options listed there.
 * 3. Every file or folder it names resolves, link by link, inside the project folder and
 *    is opened component by component without following links (project-fs.ts, as the
 *    file tools do): a link out of the project, a FIFO, a device or a missing file is not
 *    known safe.
 * 4. git only where the sandbox wraps it and the project folder is the repository's top:
 *    the repository's own config (.git/config lives in the project, which the agent can
 *    write) may name programs git runs (core.fsmonitor, diff.external, textconv drivers).
 *
 * Anything that fails a rule is not refused: it goes through the permission gate as
 * before. The denylist (shell-policy.ts) has already judged the line by then.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Node } from 'web-tree-sitter';
import {
  GIT_READ_SUBCOMMANDS,
  GIT_SAFE_GLOBALS,
  GIT_UNSAFE_LONG_OPTIONS,
  GIT_UNSAFE_SHORT_OPTIONS,
  KNOWN_SAFE_COMMANDS,
  type SafeCommandRule,
  type SafeValue,
} from './command-rules';
import { resolveInsideProject } from './policy';
import { inspectProjectPath, OPEN_READ, openProjectFile } from './project-fs';
import { sandboxInEffect } from './sandbox';
import { isPrintOnlySedScript } from './sed-script';
import { bashParser, withTree } from './shell-grammar';
import { parseShell } from './shell-parse';
import { PLAIN_SYNTAX } from './shell-prefix';

/** Beyond one plain command: the nodes and operators that join commands without adding effects. */
const JOINING_SYNTAX = new Set(['program', 'list', 'pipeline', 'comment']);
const JOINING_OPERATORS = new Set([';', '&&', '||', '|']);
/** Tokens inside plain words: the quotes of `"…"`, `'…'` and `$'…'`. */
const QUOTE_TOKENS = new Set(['"', "'", "$'"]);
/** Unquoted, these expand to something the words do not show: globs and braces. */
const EXPANDING_CHARACTERS = /[*?[\]{}]/;
/** `~`, `a=~/x`, `a:~`: tilde expansion to a home folder. */
const TILDE_PREFIX = /(^|[=:])~/;

/** The names of the known-safe commands in `command`, or null when it is not known safe. */
export async function knownSafeCommands(command: string, projectDir: string): Promise<string[] | null> {
  const argvs = await plainArgvs(command);
  if (!argvs || !argvs.length || !searchPathLeavesProject(projectDir)) return null;
  const names = new Set<string>();
  for (const [name, ...args] of argvs) {
    if (name === undefined || !(await isSafeArgv(name, args, projectDir))) return null;
    names.add(name);
  }
  return [...names];
}

/** The words of every command, when the line is only plain commands joined by safe operators. */
async function plainArgvs(command: string): Promise<string[][] | null> {
  const parser = await bashParser();
  // Line continuations join lines before bash splits words (as parseShell reads them).
  const text = command.replace(/\\\r?\n/g, '');
  const plain = withTree(parser, text, (tree) => !tree.rootNode.hasError && onlyJoinedPlainCommands(tree.rootNode));
  if (!plain) return null;
  const parsed = parseShell(parser, text);
  if (parsed.unreadable !== null || parsed.redirects.length) return null;
  const commands = parsed.pipelines.flat();
  const literal = commands.every((c) => !c.computedName && c.input === null && !c.innerCommands.length && c.words.length);
  return literal ? commands.map((c) => c.words) : null;
}

function onlyJoinedPlainCommands(node: Node): boolean {
  if (node.isNamed && !PLAIN_SYNTAX.has(node.type) && !JOINING_SYNTAX.has(node.type)) return false;
  if (!node.isNamed && !JOINING_OPERATORS.has(node.type) && !QUOTE_TOKENS.has(node.type)) return false;
  // A `word` node is never inside quotes: quoted text is a string's content.
  if (node.type === 'word' && (EXPANDING_CHARACTERS.test(node.text) || TILDE_PREFIX.test(node.text))) return false;
  return node.children.every((child) => child === null || onlyJoinedPlainCommands(child));
}

/**
 * A bare name is looked up on PATH: an empty or relative entry, or one inside the project,
 * would find the project's own `ls` first.
 */
function searchPathLeavesProject(projectDir: string): boolean {
  const root = path.resolve(projectDir);
  return (process.env.PATH ?? '').split(path.delimiter).every((entry) => path.isAbsolute(entry) && !isWithin(root, path.resolve(entry)));
}

function isWithin(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

async function isSafeArgv(name: string, args: string[], projectDir: string): Promise<boolean> {
  if (name === 'git') return isReadOnlyGit(args, projectDir);
  const rule = Object.hasOwn(KNOWN_SAFE_COMMANDS, name) ? KNOWN_SAFE_COMMANDS[name] : undefined;
  if (!rule) return false;
  const read = readOptions(rule, args);
  return read !== null && (await valuesAreSafe(rule, read, projectDir));
}

/** What a command line's options and operands are, read the way getopt reads them. */
interface ReadOptions {
  given: Set<string>;
  values: { kind: SafeValue; value: string }[];
  operands: string[];
}

/** Null when an option is not on the rule's list. GNU tools take options after operands too. */
function readOptions(rule: SafeCommandRule, args: string[]): ReadOptions | null {
  const read: ReadOptions = { given: new Set(), values: [], operands: [] };
  for (let i = 0, arg = args[0]; arg !== undefined; i++, arg = args[i]) {
    if (arg === '--') {
      read.operands.push(...args.slice(i + 1));
      break;
    }
    let consumed: number | null;
    if (arg.startsWith('--')) consumed = readLongOption(rule, arg, args[i + 1], read);
    else if (arg.startsWith('-') && arg !== '-') consumed = readShortOptions(rule, arg, args[i + 1], read);
    else consumed = (read.operands.push(arg), 0);
    if (consumed === null) return null;
    i += consumed;
  }
  return read;
}

/** `--name`, `--name=value`, `--name value`; how many following words it took, or null. */
function readLongOption(rule: SafeCommandRule, arg: string, next: string | undefined, read: ReadOptions): number | null {
  const eq = arg.indexOf('=');
  const name = eq === -1 ? arg : arg.slice(0, eq);
  const kind = Object.hasOwn(rule.valued, name) ? rule.valued[name] : undefined;
  read.given.add(name);
  if (eq !== -1) return kind ? (read.values.push({ kind, value: arg.slice(eq + 1) }), 0) : null;
  if (rule.longFlags.includes(name)) return 0;
  if (!kind || next === undefined) return null;
  read.values.push({ kind, value: next });
  return 1;
}

/** `-abc`, `-n5`, `-n 5`, and `-20` where a count may be written so. */
function readShortOptions(rule: SafeCommandRule, arg: string, next: string | undefined, read: ReadOptions): number | null {
  if (rule.countShorthand && /^-\d+$/.test(arg)) return 0;
  for (let at = 1; at < arg.length; at++) {
    const letter = arg.charAt(at);
    const option = `-${letter}`;
    read.given.add(option);
    if (rule.shortFlags.includes(letter)) continue;
    const kind = Object.hasOwn(rule.valued, option) ? rule.valued[option] : undefined;
    if (!kind) return null;
    const attached = arg.slice(at + 1);
    if (attached) return (read.values.push({ kind, value: attached }), 0);
    if (next === undefined) return null;
    read.values.push({ kind, value: next });
    return 1;
  }
  return 0;
}

async function valuesAreSafe(rule: SafeCommandRule, read: ReadOptions, projectDir: string): Promise<boolean> {
  if (rule.requires && !rule.requires.some((option) => read.given.has(option))) return false;
  let operands = read.operands;
  const values = [...read.values];
  if (rule.leading && !rule.leading.unless.some((option) => read.given.has(option))) {
    const [leading, ...rest] = operands;
    if (leading === undefined) return false;
    values.push({ kind: rule.leading.value, value: leading });
    operands = rest;
  }
  if (rule.operands === 'none' && operands.length) return false;
  for (const { kind, value } of values) if (!(await isSafeValue(kind, value, projectDir))) return false;
  const isSafeOperand = rule.operands === 'files' ? isProjectFile : isProjectFileOrFolder;
  for (const operand of operands) if (!(await isSafeOperand(projectDir, operand))) return false;
  return true;
}

async function isSafeValue(kind: SafeValue, value: string, projectDir: string): Promise<boolean> {
  switch (kind) {
    case 'count':
      return /^[+-]?\d+[A-Za-z]{0,3}$/.test(value);
    case 'text':
      return true;
    case 'when':
      return ['never', 'always', 'auto', 'ansi'].includes(value);
    case 'project-file':
      return isProjectFile(projectDir, value);
    case 'sed-script':
      return isPrintOnlySedScript(value);
  }
}

/** A regular file inside the project, opened as the file tools open one (no link followed, no FIFO opened). */
async function isProjectFile(projectDir: string, p: string): Promise<boolean> {
  try {
    const file = await openProjectFile(projectDir, p, OPEN_READ);
    await file.handle.close();
    return true;
  } catch {
    return false;
  }
}

async function isProjectFileOrFolder(projectDir: string, p: string): Promise<boolean> {
  try {
    if ((await inspectProjectPath(projectDir, p)).isFolder) return true;
  } catch {
    return false;
  }
  return isProjectFile(projectDir, p);
}

/**
 * `git status|diff|log|show` with no global option but --no-pager, none of the options
 * that write or run programs, and every other word (revisions, paths) resolving inside the
 * project: `git diff /etc/a /etc/b` compares files outside the work tree without --no-index.
 */
async function isReadOnlyGit(args: string[], projectDir: string): Promise<boolean> {
  if (!sandboxInEffect() || !(await isRepositoryTop(projectDir))) return false;
  let i = 0;
  let arg = args[0];
  while (arg?.startsWith('-')) {
    if (!GIT_SAFE_GLOBALS.has(arg)) return false;
    arg = args[++i];
  }
  if (arg === undefined || !GIT_READ_SUBCOMMANDS.has(arg)) return false;
  for (const arg of args.slice(i + 1)) {
    if (isUnsafeGitOption(arg)) return false;
    if (!arg.startsWith('-') && !(await resolvesInsideProject(projectDir, arg))) return false;
  }
  return true;
}

function isUnsafeGitOption(arg: string): boolean {
  if (GIT_UNSAFE_SHORT_OPTIONS.some((option) => arg.startsWith(option))) return true;
  if (!arg.startsWith('--') || arg === '--') return false;
  const [name = ''] = arg.split('=');
  return GIT_UNSAFE_LONG_OPTIONS.some((unsafe) => unsafe.startsWith(name) || name.startsWith(unsafe));
}

/** Where `.git` sits in the project folder itself, git reads no repository above it. */
async function isRepositoryTop(projectDir: string): Promise<boolean> {
  const entry = await fsp.lstat(path.join(projectDir, '.git')).catch(() => null);
  return entry !== null && (entry.isDirectory() || entry.isFile());
}

async function resolvesInsideProject(projectDir: string, p: string): Promise<boolean> {
  try {
    await resolveInsideProject(projectDir, p);
    return true;
  } catch {
    return false;
  }
}
