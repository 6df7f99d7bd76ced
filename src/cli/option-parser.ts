/**
 * A small command-line parser over a table of options, written for `loom` instead of a
 * library: loading and configuring commander cost every call several milliseconds, a
 * large share of a 1.5× budget over `node -e 0` (docs/DESIGN.md#command-line). It knows
 * what `loom` uses: long flags (`--name`, `--name value`, `--name=value`), the short ones
 * (`-p value`, `-pvalue`), a value that may be left out (`[url]`), flags taking the words
 * that follow (`<title...>`), choices,
 * repeatable flags, `--` and a suggestion for a misspelt flag.
 */
import { LoomError } from '../core/errors';

/** A mistake in the command line: printed as one line, exit code 2. */
export class UsageError extends LoomError {
  constructor(message: string) {
    super(message, 'usage');
  }
}

export interface OptionSpec {
  /** As shown in the help: '--data-dir <dir>', '-p, --prompt <text>', '--hub [url]', '--rename <id> <title...>', '--yes'. */
  flags: string;
  description: string;
  /** The values the option accepts; the help lists them. */
  choices?: readonly string[];
  /** Shown in the help after the choices. */
  defaultValue?: string;
  /** Each use adds a value (a list) rather than replacing the last. */
  repeatable?: boolean;
}

export interface OptionGroup {
  title: string;
  options: OptionSpec[];
}

/** A value per option given, by its camel-cased long name: true for a flag, a string, or the words of a list. */
export type ParsedValues = Record<string, true | string | string[]>;

export type ParseResult = { kind: 'help' } | { kind: 'version' } | { kind: 'values'; values: ParsedValues };

interface ResolvedOption {
  spec: OptionSpec;
  long: string;
  short?: string;
  key: string;
  /**
   * none: a flag; one: a value; optional: the next word unless it is an option (true
   * without one); words: a value and the words after it, up to the next option.
   */
  takes: 'none' | 'one' | 'optional' | 'words';
}

/** The two options every command has: they end the parse rather than setting a value. */
const HELP_LONG = '--help';
const VERSION_LONG = '--version';
const HELP = ['-h', HELP_LONG];
const VERSION = ['-V', VERSION_LONG];

function resolveOption(spec: OptionSpec): ResolvedOption {
  const [, short, long, argument] = /^(?:(-\w), )?(--[\w-]+)(?: (.*))?$/.exec(spec.flags) ?? [];
  if (long === undefined) throw new Error(`malformed option flags: ${spec.flags}`);
  const takes = argument === undefined ? 'none' : argument.includes('...') ? 'words' : argument.startsWith('[') ? 'optional' : 'one';
  const key = long.slice(2).replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());
  return { spec, long, short, key, takes };
}

/** Parses `argv` against `groups`. Throws UsageError with commander's wording, which users and scripts know. */
export function parseOptions(groups: readonly OptionGroup[], argv: readonly string[]): ParseResult {
  // --help and --version are in the table for the help page only: they end the parse instead.
  const options = groups.flatMap((group) => group.options.map(resolveOption)).filter((option) => !HELP.includes(option.long) && !VERSION.includes(option.long));
  const byFlag = new Map(options.flatMap((option) => [[option.long, option] as const, ...(option.short ? [[option.short, option] as const] : [])]));
  const values: ParsedValues = {};
  const unknown: string[] = [];
  const operands: string[] = [];
  let listening: ResolvedOption | undefined; // a `words` option still taking words
  const rest = [...argv];
  while (rest.length) {
    const arg = rest.shift()!;
    if (arg === '--') {
      (unknown.length ? unknown : operands).push(...rest);
      break;
    }
    if (listening && !looksLikeOption(arg)) {
      (values[listening.key] as string[]).push(arg);
      continue;
    }
    listening = undefined;
    if (VERSION.includes(arg)) return { kind: 'version' };
    const [flag, inline] = splitInlineValue(arg, byFlag);
    const option = byFlag.get(flag);
    if (option && (inline === undefined || option.takes !== 'none')) {
      if (option.takes === 'none') values[option.key] = true;
      else if (option.takes === 'optional') {
        const next = rest[0];
        const value = inline ?? (next !== undefined && !looksLikeOption(next) ? rest.shift() : undefined);
        values[option.key] = value === undefined ? true : checkChoice(option, value);
      } else {
        const value = inline ?? rest.shift();
        if (value === undefined) throw new UsageError(`option '${option.spec.flags}' argument missing`);
        store(values, option, checkChoice(option, value));
        if (option.takes === 'words') listening = option;
      }
      continue;
    }
    if (looksLikeOption(arg) || unknown.length) unknown.push(arg);
    else operands.push(arg);
  }
  // Help wins over a mistake made beside it (`loom --bogus --help` helps), as with commander.
  if (unknown.some((arg) => HELP.includes(arg))) return { kind: 'help' };
  // unknown starts with an option (an operand after one joins it, so it is reported too).
  const [firstUnknown] = unknown;
  if (firstUnknown !== undefined) throw new UsageError(`unknown option '${firstUnknown}'${suggestion(firstUnknown, options)}`);
  if (operands.length) throw new UsageError(`too many arguments. Expected 0 arguments but got ${operands.length}.`);
  return { kind: 'values', values };
}

function looksLikeOption(arg: string): boolean {
  return arg.length > 1 && arg.startsWith('-');
}

/** '--name=value' and '-pvalue' name their option and carry its value; anything else is the flag alone. */
function splitInlineValue(arg: string, byFlag: Map<string, ResolvedOption>): [string, string | undefined] {
  if (byFlag.has(arg)) return [arg, undefined];
  if (arg.startsWith('--') && arg.includes('=')) return [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)];
  const short = /^-\w./.test(arg) ? byFlag.get(arg.slice(0, 2)) : undefined;
  if (short && short.takes !== 'none') return [arg.slice(0, 2), arg.slice(2)];
  return [arg, undefined];
}

function store(values: ParsedValues, option: ResolvedOption, value: string): void {
  // A list flag given twice takes both lists, as commander does.
  if (option.takes === 'words' || option.spec.repeatable) values[option.key] = [...((values[option.key] as string[] | undefined) ?? []), value];
  else values[option.key] = value;
}

function checkChoice(option: ResolvedOption, value: string): string {
  const { choices } = option.spec;
  if (choices && !choices.includes(value)) {
    throw new UsageError(`option '${option.spec.flags}' argument '${value}' is invalid. Allowed choices are ${choices.join(', ')}.`);
  }
  return value;
}

/** " (Did you mean --list-sessions?)" for a long flag close enough to a known one (at most 3 edits, 40 % alike). */
function suggestion(flag: string, options: ResolvedOption[]): string {
  if (!flag.startsWith('--')) return '';
  const word = flag.slice(2);
  let best = 3;
  let closest: string[] = [];
  for (const name of [...options.map((option) => option.long), HELP_LONG, VERSION_LONG].map((long) => long.slice(2))) {
    const distance = editDistance(word, name);
    const length = Math.max(word.length, name.length);
    if ((length - distance) / length <= 0.4) continue;
    if (distance < best) [best, closest] = [distance, [name]];
    else if (distance === best) closest.push(name);
  }
  const names = closest.sort().map((name) => `--${name}`);
  if (names.length > 1) return ` (Did you mean one of ${names.join(', ')}?)`;
  const [only] = names;
  return only !== undefined ? ` (Did you mean ${only}?)` : '';
}

/** Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  // Every cell read lies inside the table and is filled before it is read.
  const cell = (i: number, j: number) => rows[i]?.[j] ?? Infinity;
  for (const [i, row] of rows.entries()) {
    if (i === 0) continue;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charAt(i - 1) === b.charAt(j - 1) ? 0 : 1;
      let distance = Math.min(cell(i - 1, j) + 1, cell(i, j - 1) + 1, cell(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a.charAt(i - 1) === b.charAt(j - 2) && a.charAt(i - 2) === b.charAt(j - 1)) distance = Math.min(distance, cell(i - 2, j - 2) + 1);
      row[j] = distance;
    }
  }
  return cell(a.length, b.length);
}
