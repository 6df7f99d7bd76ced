/**
 * Command prefixes for "allow for this session" (docs/DESIGN.md#permissions-and-security). A granted
 * prefix such as `npm test` covers a command only when the whole line is one simple command
 * made of plain words (quoted or not) whose first words are the prefix's: no pipes, lists
 * (`;`, `&&`, `||`, `&`, a newline), redirections, here-strings, substitutions, variable or
 * arithmetic expansions, assignments before the name (`NODE_OPTIONS=… npm test`), comments,
 * subshells or groups. Anything else is asked about as usual.
 */
import type { Node } from 'web-tree-sitter';
import { bashParser, withTree } from './shell-grammar';
import { parseShell } from './shell-parse';

/** The syntax a covered line may contain (named nodes; quotes and other tokens are unnamed). */
export const PLAIN_SYNTAX: ReadonlySet<string> = new Set([
  'command',
  'command_name',
  'word',
  'string',
  'string_content',
  'raw_string',
  'ansi_c_string',
  'concatenation',
  'number',
]);

/** A plain command's words: its name first, then its arguments. */
export type CommandWords = [string, ...string[]];

/** The words of `command` when it is one plain simple command, else null. */
export async function plainCommandWords(command: string): Promise<CommandWords | null> {
  const parser = await bashParser();
  // Line continuations join lines before bash splits words (as parseShell reads them).
  const text = command.replace(/\\\r?\n/g, '');
  const plain = withTree(parser, text, (tree) => {
    const root = tree.rootNode;
    return !root.hasError && root.childCount === 1 && root.children[0]?.type === 'command' && onlyPlainSyntax(root.children[0]);
  });
  if (!plain) return null;
  const parsed = parseShell(parser, text);
  const [pipeline] = parsed.pipelines;
  const only = parsed.pipelines.length === 1 && pipeline?.length === 1 ? pipeline[0] : undefined;
  if (!only || only.computedName || only.input !== null || only.innerCommands.length || parsed.redirects.length || parsed.unreadable) return null;
  const [name, ...args] = only.words;
  return name === undefined ? null : [name, ...args];
}

function onlyPlainSyntax(node: Node): boolean {
  if (node.isNamed && !PLAIN_SYNTAX.has(node.type)) return false;
  return node.children.every((child) => child === null || onlyPlainSyntax(child));
}

/**
 * The prefix offered for a plain command: its name and, when the second word is not an
 * option, that word too (`npm test --watch` → `npm test`, `ls -la` → `ls`).
 */
export function offeredPrefix(words: Readonly<CommandWords>): string[] {
  const [name, second] = words;
  return second !== undefined && !second.startsWith('-') ? [name, second] : [name];
}

/** Whether a plain command's words start with the prefix, word for word (`npm testx` is not `npm test`). */
export function startsWithPrefix(words: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length > 0 && prefix.length <= words.length && prefix.every((word, i) => words[i] === word);
}
