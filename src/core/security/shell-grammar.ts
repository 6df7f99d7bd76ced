/**
 * The bash grammar the shell denylist reads commands with: tree-sitter-bash (the grammar
 * editors and Codex's command-safety checks use), run through web-tree-sitter's WASM
 * build, so there is nothing native to compile. Loading is asynchronous and happens once;
 * parsing after that is synchronous.
 */
import { createRequire } from 'node:module';
import { Language, Parser, type Tree } from 'web-tree-sitter';

let loading: Promise<Parser> | undefined;

/** The parser, loaded on first use and shared afterwards. */
export function bashParser(): Promise<Parser> {
  loading ??= load();
  return loading;
}

async function load(): Promise<Parser> {
  // Resolved from the installed packages, so it works from src/, the dist/ bundle and Electron.
  const require = createRequire(import.meta.url);
  const runtime = require.resolve('web-tree-sitter/web-tree-sitter.wasm');
  await Parser.init({ locateFile: () => runtime });
  const bash = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
  const parser = new Parser();
  parser.setLanguage(bash);
  return parser;
}

/** Parses `text`, hands the tree to `read` and frees it (trees live in WASM memory). */
export function withTree<T>(parser: Parser, text: string, read: (tree: Tree) => T): T {
  const tree = parser.parse(text);
  if (!tree) throw new Error('the bash parser returned no tree');
  try {
    return read(tree);
  } finally {
    tree.delete();
  }
}
