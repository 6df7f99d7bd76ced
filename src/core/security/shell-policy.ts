/**
 * The shell denylist that no permission mode overrides, and the commands that are always
 * asked about. Commands are read with a real bash grammar (shell-parse.ts over
 * tree-sitter-bash): every simple command anywhere in the line is judged by its real
 * name (`/bin/rm`, `r''m`, `$(echo rm)`, `{rm,-rf,/}` are all `rm`), through wrappers
 * (`env`, `nohup`, `timeout`, `xargs`, `find -exec`), nested command lines (`bash -c`,
 * `eval`, `env -S`, `watch`) and scripts fed to a shell (here-documents, `printf … | sh`,
 * `base64 -d | sh`). A line the grammar cannot read is refused rather than guessed at.
 *
 * This is a guard rail, not a boundary: a determined command can still hide intent
 * (unknown variables, scripts written to a file and run later, interpreters). The OS
 * sandbox (sandbox.ts: project folder writable, the rest read-only or hidden, no network)
 * is what actually contains run_bash; this list stops the obvious disasters before they
 * start, also inside the project folder, and gives the model a clear reason.
 */
import path from 'node:path';
import type { Parser } from 'web-tree-sitter';
import { errorMessage } from '../errors';
import {
  BLOCK_DEVICE,
  DD_HARMLESS_OUTPUTS,
  DOWNLOADERS,
  FILESYSTEM_FORMATTERS,
  FIND_EXEC_ACTIONS,
  GIT_VALUE_GLOBALS,
  INTERPRETERS,
  KEYWORDS,
  OWNERSHIP_CHANGERS,
  POWER,
  POWER_VERBS,
  PRIVILEGE,
  RECURSIVE_CHANGERS,
  SCRIPT_RUNNERS,
  SHELLS,
  STDIN_PATHS,
  SYSTEM_DIRS,
  WRAPPERS,
  WRITE_OPERANDS,
} from './command-rules';
import { bashParser } from './shell-grammar';
import { COMPUTED, parseShell, pipelineOutput, type Pipeline, type SimpleCommand } from './shell-parse';

export type ShellVerdict = { verdict: 'block' | 'ask' | 'ok'; label?: string };
type Finding = { verdict: 'block' | 'ask'; label: string };

/** Deeper nesting than this is refused rather than guessed at. */
const MAX_NESTING = 8;

/** How deep the current command line is nested (`bash -c "eval …"`), and the parser. */
interface Scope {
  parser: Parser;
  depth: number;
}

export async function checkShellCommand(command: string): Promise<ShellVerdict> {
  let parser: Parser;
  try {
    parser = await bashParser();
  } catch (err) {
    return block(`the shell grammar could not be loaded, so no command can be checked (${errorMessage(err)})`);
  }
  let findings: Finding[];
  try {
    findings = analyse(command, { parser, depth: 0 });
  } catch (err) {
    // A checker that fails refuses: an unjudged command never runs.
    return block(`the shell checker failed on this command (${errorMessage(err)})`);
  }
  const blocked = findings.find((f) => f.verdict === 'block');
  if (blocked) return blocked;
  return findings.find((f) => f.verdict === 'ask') ?? { verdict: 'ok' };
}

function analyse(text: string, scope: Scope): Finding[] {
  if (scope.depth > MAX_NESTING) return [block('a command nested too deeply to check')];
  const parsed = parseShell(scope.parser, text);
  if (parsed.unreadable !== null) return [block(`${parsed.unreadable}; write the command plainly`)];
  const findings: Finding[] = [];
  if (isForkBomb(text)) findings.push(block('fork bomb'));
  for (const pipeline of parsed.pipelines) {
    findings.push(...checkPipeline(pipeline, scope));
  }
  for (const r of parsed.redirects) {
    if (r.op.includes('>')) findings.push(...checkWriteTarget(r.target, 'redirect'));
  }
  return findings;
}

function nested(scope: Scope): Scope {
  return { ...scope, depth: scope.depth + 1 };
}

function block(label: string): Finding {
  return { verdict: 'block', label };
}

function ask(label: string): Finding {
  return { verdict: 'ask', label };
}

/** `name(){ name|name& };name` and its spellings: a function that spawns itself in the background. */
function isForkBomb(text: string): boolean {
  if (/\bfork\s+while\s+fork\b/.test(text)) return true;
  // Bounded name and body, anchored at a name start: linear on long input, not quadratic.
  const definition = /(?:function\s+([\w:.-]{1,64})\s*(?:\(\s*\))?|(?<![\w:.-])([\w:.-]{1,64})\s*\(\s*\))\s*\{([^}]{0,500})\}/g;
  for (const [, functionName, bareName, body = ''] of text.matchAll(definition)) {
    const name = (functionName ?? bareName ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    if (new RegExp(`(^|[\\s;|&{(])${name}\\s*[|&]`).test(body) && body.includes('&')) return true;
  }
  return false;
}

/**
 * What flows through a pipeline: a script fed to a shell is judged as a command line
 * (`printf 'rm -rf /' | bash`, `bash <<EOF`, `base64 -d <<< … | sh`); one whose text is
 * not literal is asked about, and a downloaded one is refused (`curl … | sh`,
 * `sh <(curl …)`, `bash -c "$(wget …)"`). `… | xargs rm -rf` is judged with the paths it
 * is fed. Then each stage's own command is judged, after what flows between them.
 */
function checkPipeline(pipeline: Pipeline, scope: Scope): Finding[] {
  const findings: Finding[] = [];
  const stageFindings: Finding[] = [];
  let downloaded = false;
  pipeline.forEach((command, i) => {
    const { argv, nested: inner, viaXargs } = unwrap(command.words, scope);
    stageFindings.push(...inner, ...judge(argv, scope));
    const name = commandName(argv[0]);
    const args = argv.slice(1);
    const fed = command.input ?? (i > 0 ? pipelineOutput(pipeline.slice(0, i)) : null);
    const piped = command.input !== null || i > 0;
    if (readsScriptFromStdin(name, args)) {
      if (downloaded) findings.push(block(DOWNLOAD_LABEL));
      else if (fed !== null && (SHELLS.has(name) || name === 'source' || name === '.')) findings.push(...analyse(fed, nested(scope)));
      else if (fed === null && piped) findings.push(ask(`${name} running commands from another command's output`));
    }
    const runsSubstitution = SHELLS.has(name) || INTERPRETERS.has(name) || SCRIPT_RUNNERS.has(name);
    if (runsSubstitution && command.innerCommands.some(isDownloader)) findings.push(block(DOWNLOAD_LABEL));
    if (viaXargs) findings.push(...checkXargs(argv, fed, pipeline.slice(0, i), scope));
    if (DOWNLOADERS.has(name)) downloaded = true;
  });
  findings.push(...stageFindings);
  return findings;
}

const DOWNLOAD_LABEL = 'running a downloaded script without saving and reading it first (curl | sh)';

function isDownloader(command: SimpleCommand): boolean {
  return DOWNLOADERS.has(commandName(command.words[0]));
}

/** A shell or interpreter that takes its program from standard input. */
function readsScriptFromStdin(name: string, args: string[]): boolean {
  if (SHELLS.has(name)) {
    const { flags, operands } = splitArgs(args);
    if (flags.some((f) => /^-[A-Za-z]*c/.test(f))) return false;
    return operands.length === 0 || flags.some((f) => /^-[A-Za-z]*s/.test(f)) || STDIN_PATHS.has(operands[0] ?? '');
  }
  if (name === 'source' || name === '.') return STDIN_PATHS.has(args[0] ?? '');
  return INTERPRETERS.has(name) && args.every((a) => a === '-' || a.startsWith('-'));
}

/**
 * `echo / | xargs rm -rf`: the command is judged with the words it is fed when they are
 * literal; otherwise a recursive delete or chmod is refused when an earlier stage names a
 * broad target (`find / | xargs rm -rf`) and asked about when nothing shows what it gets.
 */
function checkXargs(argv: string[], fed: string | null, before: Pipeline, scope: Scope): Finding[] {
  if (fed !== null) return checkArgv([...argv, ...fed.split(/\s+/).filter(Boolean)], scope);
  const name = commandName(argv[0]);
  const { flags } = splitArgs(argv.slice(1));
  const recursive = flags.includes('--recursive') || hasShortFlag(flags, name === 'rm' ? 'rR' : 'R');
  if (!RECURSIVE_CHANGERS.includes(name) || !recursive) return [];
  const named = before.flatMap((c) => splitArgs(c.words.slice(1)).operands);
  const broad = named.find((t) => isBroadTarget(t) && !isWorkingDir(t));
  if (broad !== undefined) return [block(`${name} -r through xargs over a broad target (${broad})`)];
  return [ask(`recursive ${name} of paths read from input (xargs)`)];
}

/** What a command line really runs, what its wrappers run nested, and whether xargs feeds it. */
interface Unwrapped {
  argv: string[];
  nested: Finding[];
  viaXargs: boolean;
}

/** The command a line really runs, after `VAR=x`, keywords and wrappers such as `env`. */
function unwrap(words: string[], scope: Scope): Unwrapped {
  let argv = words;
  const found: Finding[] = [];
  let viaXargs = false;
  for (;;) {
    while (isPrefixWord(argv[0])) argv = argv.slice(1);
    const wrapperName = commandName(argv[0]);
    const wrapper = WRAPPERS[wrapperName];
    if (!wrapper) break;
    if (wrapperName === 'xargs') viaXargs = true;
    argv = argv.slice(1);
    for (let option = argv[0]; option !== undefined && option.startsWith('-') && option !== '-'; option = argv[0]) {
      argv = argv.slice(1);
      if (option === '--') break;
      if (option === '-S' || option === '--split-string') {
        found.push(...analyse(argv[0] ?? '', nested(scope))); // env -S "cmd args"
        argv = argv.slice(1);
      } else if (wrapper.valueOptions.includes(option)) {
        argv = argv.slice(1);
      }
    }
    argv = argv.slice(wrapper.positional ?? 0);
  }
  // `watch "rm -rf ~"` and friends pass a whole command line as one word.
  if (/\s/.test(argv[0] ?? '')) found.push(...analyse(argv.join(' '), nested(scope)));
  return { argv, nested: found, viaXargs };
}

/** A keyword or `VAR=x` before the command name. */
function isPrefixWord(word: string | undefined): boolean {
  return word !== undefined && (KEYWORDS.has(word) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
}

function commandName(word: string | undefined): string {
  return word ? path.posix.basename(word) : '';
}

function checkArgv(words: string[], scope: Scope): Finding[] {
  const { argv, nested: found } = unwrap(words, scope);
  return [...found, ...judge(argv, scope)];
}

/** The rules applied to the command actually run (wrappers already removed). */
function judge(argv: string[], scope: Scope): Finding[] {
  const [word, ...args] = argv;
  if (word === undefined) return [];
  if (isComputed(word)) return checkComputedName(word, args);
  const name = commandName(word);
  return RULES.flatMap((rule) => rule(name, args, scope));
}

/** A name only known at run time (`$(…)`, `$CMD`): refused with rm -rf's arguments, else asked. */
function checkComputedName(word: string, args: string[]): Finding[] {
  const asRm = checkRm('rm', args);
  if (asRm.length) return [block(`a command whose name is only known at run time, with rm -rf arguments (${word} ${args.join(' ')})`)];
  return [ask(`a command whose name is only known at run time (${word})`)];
}

function isComputed(word: string): boolean {
  return word.includes(COMPUTED) || word.includes('$');
}

type Rule = (name: string, args: string[], scope: Scope) => Finding[];

const RULES: Rule[] = [
  (name) => (PRIVILEGE.has(name) ? [block(`privilege escalation (${name})`)] : []),
  (name) => (FILESYSTEM_FORMATTERS.test(name) ? [block(`formatting a filesystem (${name})`)] : []),
  (name, args) => (isPowerCommand(name, args) ? [block('shutting down or rebooting the machine')] : []),
  (name, args) => (name === 'killall5' || (name === 'kill' && killsEverything(args)) ? [block('killing every process (kill -1)')] : []),
  checkRm,
  checkRsyncDelete,
  checkFind,
  checkOwnership,
  checkDd,
  checkWrites,
  checkGitPush,
  checkNestedShell,
];

function isPowerCommand(name: string, args: string[]): boolean {
  if (POWER.has(name)) return true;
  if (name === 'systemctl') return args.some((a) => POWER_VERBS.has(a));
  return (name === 'init' || name === 'telinit') && (args[0] === '0' || args[0] === '6');
}

/** `kill -9 -1`, `kill -- -1`, `kill -s KILL -1`: pid -1 is every process we may signal. */
function killsEverything(args: string[]): boolean {
  let i = 0;
  if (args[0] === '-s' || args[0] === '-n') i = 2;
  else if (args[0]?.startsWith('-') && args[0] !== '--' && args[0] !== '-1') i = 1;
  else if (args[0] === '-1' && args.length > 1) i = 1; // `kill -1 PID` sends SIGHUP to PID
  return args
    .slice(i)
    .filter((a) => a !== '--')
    .includes('-1');
}

/** Options (short clusters and long names) and operands, split at `--`. */
function splitArgs(args: string[]): { flags: string[]; operands: string[] } {
  const end = args.indexOf('--');
  const head = end === -1 ? args : args.slice(0, end);
  const tail = end === -1 ? [] : args.slice(end + 1);
  const isFlag = (a: string) => a.startsWith('-') && a !== '-';
  return { flags: head.filter(isFlag), operands: [...head.filter((a) => !isFlag(a)), ...tail] };
}

function hasShortFlag(flags: string[], letters: string): boolean {
  return flags.some((f) => /^-[^-]/.test(f) && [...letters].some((l) => f.includes(l)));
}

function checkRm(name: string, args: string[]): Finding[] {
  if (name !== 'rm') return [];
  const { flags, operands } = splitArgs(args);
  if (flags.includes('--no-preserve-root')) return [block('rm --no-preserve-root')];
  const recursive = flags.includes('--recursive') || hasShortFlag(flags, 'rR');
  const broad = operands.find(isBroadTarget);
  return recursive && broad !== undefined ? [block(`rm -rf of a broad target (${broad})`)] : [];
}

/** `rsync -a --delete empty/ ~/`: the destination ends up as empty as the source. */
function checkRsyncDelete(name: string, args: string[]): Finding[] {
  if (name !== 'rsync') return [];
  const { flags, operands } = splitArgs(args);
  if (!flags.some((f) => f.startsWith('--del') || f === '--remove-source-files')) return [];
  const destination = operands[operands.length - 1];
  return destination !== undefined && isBroadTarget(destination) ? [block(`rsync --delete onto a broad target (${destination})`)] : [];
}

/** `find / -delete`, `find ~ -exec rm -rf {} +`; the command after -exec is checked too. */
function checkFind(name: string, args: string[], scope: Scope): Finding[] {
  if (name !== 'find') return [];
  const findings: Finding[] = [];
  const firstExpression = args.findIndex((a) => a.startsWith('-') || a === '(' || a === '!');
  const roots = firstExpression === -1 ? args : args.slice(0, firstExpression);
  const execAt = args.findIndex((a) => FIND_EXEC_ACTIONS.includes(a));
  if (execAt !== -1) {
    const end = args.findIndex((a, i) => i > execAt && (a === ';' || a === '+'));
    findings.push(...checkArgv(args.slice(execAt + 1, end === -1 ? undefined : end), nested(scope)));
  }
  const destructive = args.includes('-delete') || execAt !== -1;
  const broad = roots.find((r) => isBroadTarget(r) && !isWorkingDir(r));
  if (destructive && broad !== undefined) findings.push(block(`find with -delete/-exec over a broad target (${broad})`));
  return findings;
}

/** Recursive chmod/chown/chgrp of a system folder; chmod 7xx is asked about. */
function checkOwnership(name: string, args: string[]): Finding[] {
  if (!OWNERSHIP_CHANGERS.includes(name)) return [];
  const { flags, operands } = splitArgs(args);
  // chmod's own `-r`, `-w`, `-x` are modes, so only `R` means recursive here.
  const recursive = flags.includes('--recursive') || flags.some((f) => /^-[^-]*R/.test(f));
  const [mode, ...targets] = operands;
  const broad = targets.find((t) => isBroadTarget(t) && !isWorkingDir(t));
  if (recursive && broad !== undefined) return [block(`recursive ${name} of a system folder (${broad})`)];
  if (name === 'chmod' && mode !== undefined && /^[0-7]?7[0-7]{2}$/.test(mode)) {
    return [ask(`chmod ${mode} (full owner permissions, including execute)`)];
  }
  return [];
}

function checkDd(name: string, args: string[]): Finding[] {
  if (name !== 'dd') return [];
  const output = args.find((a) => a.startsWith('of='))?.slice(3);
  if (output === undefined) return [];
  const device = path.posix.normalize(output);
  const harmless = DD_HARMLESS_OUTPUTS.includes(device) || device.startsWith('/dev/fd/');
  if (device.startsWith('/dev/') && !harmless) return [block(`dd onto a device (${output})`)];
  return checkWriteTarget(output, 'dd');
}

function checkWrites(name: string, args: string[]): Finding[] {
  const { flags, operands } = splitArgs(args);
  let targets: string[] = [];
  const which = WRITE_OPERANDS[name];
  if (which === 'all') targets = operands;
  else if (which === 'last') targets = operands.slice(-1);
  else if ((name === 'sed' || name === 'perl') && flags.some((f) => /^-[A-Za-z]*i/.test(f) || f.startsWith('--in-place'))) targets = operands;
  const targetDir = args.findIndex((a) => a === '-t' || a === '--target-directory');
  const directory = targetDir === -1 ? undefined : args[targetDir + 1];
  if (directory) targets.push(directory);
  targets.push(...args.filter((a) => a.startsWith('--target-directory=')).map((a) => a.slice('--target-directory='.length)));
  return targets.flatMap((t) => checkWriteTarget(t, name));
}

function checkWriteTarget(target: string, how: string): Finding[] {
  const normal = path.posix.normalize(target).replace(/(.)\/+$/, '$1');
  if (normal === '/etc' || normal.startsWith('/etc/')) return [block(`writing under /etc (${how} ${target})`)];
  if (BLOCK_DEVICE.test(normal)) return [block(`writing to a block device (${how} ${target})`)];
  return [];
}

/** `git push --force`, `-f`, `--force-with-lease`, `+refspec`, `--mirror`: always asked. */
function checkGitPush(name: string, args: string[]): Finding[] {
  if (name !== 'git') return [];
  let i = 0;
  let arg = args[0];
  while (arg?.startsWith('-')) {
    i += GIT_VALUE_GLOBALS.includes(arg) ? 2 : 1;
    arg = args[i];
  }
  if (arg !== 'push') return [];
  const rest = args.slice(i + 1);
  const force = rest.some(
    (a) => a === '--force' || a.startsWith('--force-with-lease') || a === '--mirror' || /^-[^-]*f/.test(a) || (a.startsWith('+') && a.length > 1),
  );
  return force ? [ask('force push (git push --force)')] : [];
}

/** `bash -c "…"`, `sh -lc '…'`, `eval …`: the string is a command line of its own. */
function checkNestedShell(name: string, args: string[], scope: Scope): Finding[] {
  if (name === 'eval') return analyse(args.join(' '), nested(scope));
  if (!SHELLS.has(name)) return [];
  let sawC = false;
  const words = args.values();
  for (const a of words) {
    if (['-o', '+o', '-O', '+O'].includes(a))
      words.next(); // the option's value
    else if (/^-[A-Za-z]*c[A-Za-z]*$/.test(a)) sawC = true;
    else if (!a.startsWith('-') && !a.startsWith('+') && sawC) return analyse(a, nested(scope));
  }
  return [];
}

/** `.`, `./`, `$PWD`: the project folder itself, fine to search or chmod, not to delete. */
function isWorkingDir(target: string): boolean {
  return path.posix.normalize(target.replace(/^\$PWD(?=\/|$)/, '.')).replace(/\/$/, '') === '.';
}

/**
 * A target whose recursive removal or chmod would hit far more than a project: `/`, `~`,
 * `$HOME`, `*`, `.`, `..`, top-level system folders and their direct children.
 */
function isBroadTarget(raw: string): boolean {
  const target = raw.replace(/^\$HOME(?=\/|$)/, '~').replace(/^\$PWD(?=\/|$)/, '.');
  const segments = target.split('/');
  const [first = ''] = segments; // split always gives at least one segment
  // A trailing `/*`, `/.*`, `/.` or `/` still means the folder's whole content.
  while (segments.length > 1 && isContentGlob(segments.at(-1))) segments.pop();
  if (segments.length === 1 && /^[*.?]*$/.test(first)) return true; // `*`, `.`, `..`, `` (root)
  if (first.startsWith('~')) return segments.length === 1;
  const absolute = first === '';
  const normal = path.posix.normalize(segments.join('/') || '/');
  if (!absolute) return normal === '.' || normal === '..' || normal.startsWith('../');
  const parts = normal.split('/').filter(Boolean);
  return parts.length <= 1 || (parts.length === 2 && SYSTEM_DIRS.has(parts[0] ?? ''));
}

/** `*`, `.*`, `.`, `` and the like: a segment meaning a folder's whole content, never `..`. */
function isContentGlob(segment: string | undefined): boolean {
  return segment !== undefined && /^[*.?]*$/.test(segment) && segment !== '..';
}
