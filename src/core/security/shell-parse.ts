/**
 * Reads a bash command line through the tree-sitter-bash grammar (shell-grammar.ts) into
 * what the denylist judges: every simple command anywhere in it (inside pipelines, lists,
 * loops, functions, `$(…)`, backticks, `<(…)`), grouped by pipeline, with its words as
 * bash would expand them as far as that is knowable without running anything:
 *
 * - quotes and backslashes removed (`r''m`, `\rm`, `"rm"`), `$'\x72m'` decoded;
 * - brace expansion applied (`{rm,-rf,/}`, `/{usr,etc}`);
 * - variables assigned earlier in the line substituted (`a=rm; $a -rf /`), `${IFS}` a space;
 * - `$(…)` replaced by its output when that output is literal (`$(echo rm)`,
 *   `$(echo cm0= | base64 -d)`), otherwise by the marker COMPUTED.
 *
 * It expands no globs, aliases or unknown variables: it is a policy aid, not a shell.
 */
import type { Node, Parser, Tree } from 'web-tree-sitter';
import { withTree } from './shell-grammar';
import { decodeAnsiC, escapeAll, expandBraces, removeEscapes, TooManyWords } from './shell-words';

export interface Redirect {
  op: string;
  target: string;
}

export interface SimpleCommand {
  /** The expanded words, command name first; assignments before the name are left out. */
  words: string[];
  /** The command name depends on something only known at run time. */
  computedName: boolean;
  /** Literal text a here-document or here-string feeds on standard input, or null. */
  input: string | null;
  /** The commands inside this command's `$(…)`, backticks and `<(…)`/`>(…)`. */
  innerCommands: SimpleCommand[];
}

/** Commands joined by `|`; a plain command is a pipeline of one. */
export type Pipeline = SimpleCommand[];

export interface ParsedShell {
  pipelines: Pipeline[];
  /** Every file redirection in the line (`> f`, `>> f`, `&> f`, `< f`). */
  redirects: Redirect[];
  /** Why the line cannot be judged (a syntax error the grammar reports, near where), else null. */
  unreadable: string | null;
}

/** Stands for the output of a command substitution that is not literal. */
export const COMPUTED = '$(…)';

/** A stage that is not a simple command (a subshell, a `{ …; }` group, a loop). */
const OPAQUE: SimpleCommand = { words: [], computedName: false, input: null, innerCommands: [] };

const SUBSTITUTIONS = new Set(['command_substitution', 'process_substitution']);

/** Deeper syntax trees are refused: reading them would only exhaust the stack. */
const MAX_TREE_DEPTH = 200;

export function parseShell(parser: Parser, input: string): ParsedShell {
  // Line continuations join lines before bash splits words.
  const text = input.replace(/\\\r?\n/g, '');
  return withTree(parser, text, (tree) => {
    if (deeperThan(tree, MAX_TREE_DEPTH)) return { pipelines: [], redirects: [], unreadable: `a command line nested more than ${MAX_TREE_DEPTH} levels deep` };
    try {
      return new ShellReader(text).read(tree.rootNode);
    } catch (err) {
      if (err instanceof TooManyWords) return { pipelines: [], redirects: [], unreadable: err.message };
      throw err;
    }
  });
}

class ShellReader {
  private readonly source: Buffer;
  private readonly vars = new Map<string, string>();
  /** Nodes already part of a recorded pipeline, so the walk does not record them again. */
  private readonly claimed = new Set<number>();
  /** Each command is read once, however often substitutions and pipelines refer to it. */
  private readonly commands = new Map<number, SimpleCommand>();
  private readonly pipelines: Pipeline[] = [];
  private readonly redirects: Redirect[] = [];

  constructor(text: string) {
    this.source = Buffer.from(text, 'utf8');
  }

  read(root: Node): ParsedShell {
    const unreadable = root.hasError ? firstError(root) : null;
    this.walk(root);
    return { pipelines: this.pipelines, redirects: this.redirects, unreadable };
  }

  /** Pre-order, so an assignment is known before the commands after it. */
  private walk(node: Node): void {
    switch (node.type) {
      case 'pipeline':
        if (!this.claimed.has(node.id)) this.pipelines.push(this.stages(node));
        break;
      case 'redirected_statement':
        if (!this.claimed.has(node.id) && isCommand(node.childForFieldName('body'))) this.pipelines.push(this.redirectedStages(node));
        break;
      case 'command':
        if (!this.claimed.has(node.id)) this.pipelines.push([this.claim(node)]);
        break;
      case 'variable_assignment':
        this.assign(node);
        break;
      case 'file_redirect':
        this.redirect(node);
        break;
    }
    for (const child of node.namedChildren) this.walk(child);
  }

  /** The stages of `a | b | c`, nested pipelines flattened. */
  private stages(pipeline: Node): Pipeline {
    this.claimed.add(pipeline.id);
    return pipeline.namedChildren.flatMap((child): Pipeline => {
      if (!child || child.type === 'comment') return [];
      if (child.type === 'pipeline') return this.stages(child);
      if (child.type === 'redirected_statement' && isCommand(child.childForFieldName('body'))) return this.redirectedStages(child);
      if (isCommand(child)) return [this.claim(child)];
      return [OPAQUE];
    });
  }

  /**
   * `cmd <<EOF | sh`: the grammar hangs the rest of the pipeline under the here-document,
   * so it is joined back here; the body becomes the command's input.
   */
  private redirectedStages(statement: Node): Pipeline {
    this.claimed.add(statement.id);
    const body = statement.childForFieldName('body')!;
    let input: string | null = null;
    const rest: Pipeline = [];
    for (const redirect of statement.namedChildren) {
      if (redirect?.type === 'herestring_redirect') input = this.hereString(redirect);
      if (redirect?.type !== 'heredoc_redirect') continue;
      input = heredocText(redirect);
      for (const part of redirect.namedChildren) if (part.type === 'pipeline') rest.push(...this.stages(part));
    }
    return [this.claim(body, input), ...rest];
  }

  /** Reads a command that a recorded pipeline holds, so the walk does not record it again. */
  private claim(node: Node, heredoc: string | null = null): SimpleCommand {
    this.claimed.add(node.id);
    return this.command(node, heredoc);
  }

  private command(node: Node, heredoc: string | null): SimpleCommand {
    const inner = node.type === 'negated_command' ? (node.namedChildren.find(isCommand) ?? node) : node;
    const known = this.commands.get(inner.id);
    if (known) return known;
    const command = this.readCommand(inner, heredoc);
    this.commands.set(inner.id, command);
    return command;
  }

  private readCommand(inner: Node, heredoc: string | null): SimpleCommand {
    const words: string[] = [];
    let computedName = false;
    let input = heredoc;
    for (const child of inner.namedChildren) {
      if (!child || child.type === 'variable_assignment' || child.type === 'file_redirect' || child.type === 'comment') continue;
      if (child.type === 'herestring_redirect') {
        input = this.hereString(child);
      } else if (child.type === 'command_name') {
        const name = this.expand(child.namedChildren[0] ?? child);
        computedName = name.dynamic;
        words.push(...name.words);
      } else {
        words.push(...this.expand(child).words);
      }
    }
    return { words, computedName, input, innerCommands: this.innerCommands(inner) };
  }

  /** `<<< word`: the word and a newline. */
  private hereString(redirect: Node): string {
    const value = redirect.namedChildren[0];
    return value ? `${this.expand(value).words.join(' ')}\n` : '\n';
  }

  private innerCommands(node: Node): SimpleCommand[] {
    const found: SimpleCommand[] = [];
    const visit = (n: Node, inside: boolean) => {
      if (inside && isCommand(n)) found.push(this.command(n, null));
      for (const child of n.namedChildren) visit(child, inside || SUBSTITUTIONS.has(child.type));
    };
    visit(node, false);
    return found;
  }

  private assign(node: Node): void {
    const name = node.childForFieldName('name');
    const value = node.childForFieldName('value');
    if (name?.type !== 'variable_name') return;
    const expanded = value ? this.expand(value, true) : { words: [''], dynamic: false };
    if (expanded.dynamic) this.vars.delete(name.text);
    else this.vars.set(name.text, expanded.words.join(' '));
  }

  private redirect(node: Node): void {
    const destination = node.childForFieldName('destination');
    const op = node.children.find((c) => !c.isNamed)?.text ?? '';
    if (!destination) return;
    const target = this.expand(destination).words.join(' ');
    // `2>&1` and `>&-` duplicate or close descriptors; they name no file.
    if (op.includes('&') && /^(\d+|-)$/.test(target)) return;
    this.redirects.push({ op, target });
  }

  /** The words one argument node expands to, and whether any part is only known at run time. */
  private expand(node: Node, quoted = false): { words: string[]; dynamic: boolean } {
    const word = new WordBuilder();
    const dynamic = this.appendPart(word, node, quoted);
    return { words: word.finish(), dynamic };
  }

  /** Appends one node's expansion; true when part of it is only known at run time. */
  private appendPart(word: WordBuilder, node: Node, quoted: boolean): boolean {
    switch (node.type) {
      case 'word':
      case 'number':
      case 'brace_expression':
      case 'arithmetic_expansion':
        // Quoted here means an assignment's value: no brace expansion, but quote removal.
        if (quoted) word.literal(removeEscapes(node.text));
        else word.raw(node.text);
        return false;
      case 'raw_string':
        word.literal(node.text.slice(1, -1));
        return false;
      case 'ansi_c_string':
        word.literal(decodeAnsiC(node.text.slice(2, -1)));
        return false;
      case 'string':
      case 'translated_string':
        return this.appendString(word, node);
      case 'concatenation':
        return node.namedChildren.reduce((dynamic, child) => this.appendPart(word, child, quoted) || dynamic, false);
      case 'simple_expansion':
      case 'expansion':
        return this.appendVariable(word, node, quoted);
      case 'command_substitution': {
        const output = this.substitutionOutput(node);
        word.value(output ?? COMPUTED, quoted);
        return output === null;
      }
      case 'process_substitution':
        word.literal('/dev/fd/63');
        return false;
      default:
        if (quoted) word.literal(node.text);
        else word.raw(node.text);
        return false;
    }
  }

  /** `"…"`: literal runs lose their escapes; expansions inside are not split. */
  private appendString(word: WordBuilder, node: Node): boolean {
    word.literal('');
    let dynamic = false;
    let at = node.startIndex + (node.type === 'translated_string' ? 2 : 1);
    const end = node.endIndex - 1;
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.startIndex > at) word.literal(unescapeDouble(this.slice(at, child.startIndex)));
      if (child.type === 'string_content') word.literal(unescapeDouble(child.text));
      else dynamic = this.appendPart(word, child, true) || dynamic;
      at = child.endIndex;
    }
    if (end > at) word.literal(unescapeDouble(this.slice(at, end)));
    return dynamic;
  }

  /** `$a`, `${a}`, `${a:-default}`: an assigned value, the default, or `$a` as written. */
  private appendVariable(word: WordBuilder, node: Node, quoted: boolean): boolean {
    const name = node.namedChildren.find((c) => c.type === 'variable_name' || c.type === 'special_variable_name')?.text ?? '';
    if (name === 'IFS') {
      word.value(' ', quoted);
      return false;
    }
    const known = this.vars.get(name);
    if (known !== undefined && /^\$\{?[\w]+\}?$/.test(node.text)) {
      word.value(known, quoted);
      return false;
    }
    const fallback = /^\$\{\w+:?[-=]/.test(node.text) ? node.namedChildren.find((c) => c.type !== 'variable_name') : undefined;
    if (fallback && known === undefined) return this.appendPart(word, fallback, quoted);
    word.literal(name ? `$${name}` : node.text);
    return true;
  }

  /** The literal output of `$(…)` when it is a single pipeline of known output, else null. */
  private substitutionOutput(node: Node): string | null {
    const statements = node.namedChildren.filter((c) => c.type !== 'comment');
    const [statement] = statements;
    if (statement === undefined || statements.length !== 1) return null;
    let stages: Pipeline;
    if (statement.type === 'pipeline') stages = this.stages(statement);
    else if (statement.type === 'redirected_statement' && isCommand(statement.childForFieldName('body'))) stages = this.redirectedStages(statement);
    else if (isCommand(statement)) stages = [this.claim(statement)];
    else return null;
    // The commands inside are still judged as commands of their own.
    this.pipelines.push(stages);
    const output = pipelineOutput(stages);
    return output === null ? null : output.replace(/\n+$/, '');
  }

  private slice(start: number, end: number): string {
    return this.source.subarray(start, end).toString('utf8');
  }
}

/**
 * Builds the words of one argument: text is kept with its escapes (so brace expansion sees
 * what is quoted) until finish(), and unquoted values split into several words.
 */
class WordBuilder {
  private fields: string[] = [''];
  private quotedSomewhere = false;

  /** Unquoted source text: its backslashes are kept until finish(). */
  raw(text: string): void {
    this.fields[this.fields.length - 1] += text;
  }

  literal(text: string): void {
    this.quotedSomewhere = true;
    this.fields[this.fields.length - 1] += escapeAll(text);
  }

  /** A value from a variable or a substitution: split on whitespace unless quoted. */
  value(text: string, quoted: boolean): void {
    if (quoted) {
      this.literal(text);
      return;
    }
    const [first = '', ...rest] = text.split(/[ \t\n]+/); // split gives at least one piece
    this.fields[this.fields.length - 1] += escapeAll(first);
    for (const piece of rest) this.fields.push(escapeAll(piece));
  }

  finish(): string[] {
    const kept = this.quotedSomewhere ? this.fields : this.fields.filter((f) => f !== '');
    return kept.flatMap((field) => expandBraces(field).map(removeEscapes));
  }
}

/** Walks the tree with a cursor (no recursion) to see whether any node lies deeper than `limit`. */
function deeperThan(tree: Tree, limit: number): boolean {
  const cursor = tree.walk();
  try {
    for (;;) {
      if (cursor.currentDepth > limit) return true;
      if (cursor.gotoFirstChild() || cursor.gotoNextSibling()) continue;
      do {
        if (!cursor.gotoParent()) return false;
      } while (!cursor.gotoNextSibling());
    }
  } finally {
    cursor.delete();
  }
}

function isCommand(node: Node | null | undefined): node is Node {
  return node?.type === 'command' || (node?.type === 'negated_command' && node.namedChildren.some((c) => c.type === 'command'));
}

/** The body of `<<EOF` / `<<-EOF` (leading tabs removed for the latter). */
function heredocText(redirect: Node): string {
  const body = redirect.namedChildren.find((c) => c.type === 'heredoc_body')?.text ?? '';
  return redirect.text.startsWith('<<-') ? body.replace(/^\t+/gm, '') : body;
}

/** Inside double quotes a backslash escapes only `$`, `` ` ``, `"` and `\`. */
function unescapeDouble(text: string): string {
  return text.replace(/\\([$`"\\])/g, '$1');
}

function firstError(root: Node): string {
  const stack: Node[] = [root];
  while (stack.length) {
    const node = stack.shift()!;
    if (node.isError || node.isMissing) {
      const text = node.isMissing ? `missing ${node.type}` : node.text;
      return `shell syntax the checker cannot read, near "${text.length > 60 ? `${text.slice(0, 60)}…` : text}"`;
    }
    for (const child of node.children) stack.push(child);
  }
  return 'shell syntax the checker cannot read';
}

/**
 * What a pipeline prints, when every stage is one whose output follows from its literal
 * input: echo, printf, cat, base64 -d, rev, xxd -r -p. Null for anything else.
 */
export function pipelineOutput(stages: Pipeline): string | null {
  let data: string | null = null;
  for (const stage of stages) {
    data = commandOutput(stage, stage.input ?? data);
    if (data === null) return null;
  }
  return data;
}

function commandOutput(command: SimpleCommand, stdin: string | null): string | null {
  if (command.computedName || !command.words.length) return null;
  const [name, ...args] = command.words;
  const reading = stdin !== null && (args.length === 0 || (args.length === 1 && args[0] === '-'));
  switch (name) {
    case 'echo':
      return echo(args);
    case 'printf':
      return printf(args[0] ?? '', args.slice(1));
    case 'cat':
      return reading ? stdin : null;
    case 'base64':
      return stdin !== null && args.some((a) => ['-d', '--decode', '-D', '-di', '-id'].includes(a)) ? Buffer.from(stdin, 'base64').toString('utf8') : null;
    case 'rev':
      return reading
        ? stdin
            .split('\n')
            .map((l) => [...l].reverse().join(''))
            .join('\n')
        : null;
    case 'xxd':
      return stdin !== null && args.includes('-r') && args.includes('-p') ? Buffer.from(stdin.replace(/\s+/g, ''), 'hex').toString('utf8') : null;
    default:
      return null;
  }
}

function echo(args: string[]): string {
  let newline = true;
  let escapes = false;
  let i = 0;
  for (let arg = args[0]; arg !== undefined && /^-[neE]+$/.test(arg); arg = args[++i]) {
    if (arg.includes('n')) newline = false;
    if (arg.includes('e')) escapes = true;
  }
  const text = args.slice(i).join(' ');
  return (escapes ? decodeAnsiC(text) : text) + (newline ? '\n' : '');
}

/** printf's format reused while arguments remain, as bash does; %s-like conversions only. */
function printf(format: string, args: string[]): string {
  const template = decodeAnsiC(format);
  let out = '';
  let rest = args;
  do {
    let used = 0;
    out += template.replace(/%(%|[-+ #0-9.]*[sbdicqux])/g, (_m, spec: string) => {
      if (spec === '%') return '%';
      const value = rest[used++] ?? '';
      return spec.endsWith('b') ? decodeAnsiC(value) : value;
    });
    rest = rest.slice(used);
    if (!used) break;
  } while (rest.length);
  return out;
}
