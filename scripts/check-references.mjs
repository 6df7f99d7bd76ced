// Fails when the code or the docs cite something outside the repository, or a page or
// heading of docs/ that does not exist. The decisions the code relies on are recorded in
// docs/DESIGN.md; a citation of the design the project started from (its numbered
// sections, or its files in a shared folder beside the checkout) would leave a reader with
// nothing to open. A heading is cited by its anchor (docs/DESIGN.md#branches), which this
// check follows, not by its title. Run by `npm test`.
// Usage: node scripts/check-references.mjs [root]. The root defaults to this repository;
// the tests point it at small fixture trees.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
const SCANNED = ['src', 'test', 'bench', 'scripts', 'docs', 'README.md'];
const TEXT_FILE = /\.(ts|tsx|mts|js|mjs|md)$/;

// Written with \u00a7 and \/ so that this file does not match its own patterns.
const REFUSED = [
  { pattern: /\bDESIGN\s*\u00a7\s*\d*/g, why: 'a section of a design outside the repository' },
  { pattern: /(?<![\w/])(?:\.\.\/)*shared\/[A-Z][A-Z_-]*\.md/g, why: 'a document outside the repository' },
  { pattern: /(?<![\w/.])docs\/[A-Z][A-Z_-]*\.md,\s*"[^"]*"?/g, why: 'a heading by its title, which this check does not follow' },
];
// A docs page (named in capitals) and maybe a heading, as the code and the README cite them.
const DOCS_CITATION = /(?<![\w/.])docs\/([A-Z][A-Z_-]*\.md)(?:#([\w-]+))?/g;
// A Markdown link to a page beside a docs page: [text](PAGE.md#heading) or [text](#heading).
const RELATIVE_LINK = /\]\((?!\w+:)([\w./-]*\.md)?(?:#([\w-]+))?\)/g;

function* walk(entry) {
  const full = path.join(root, entry);
  if (!existsSync(full)) return;
  if (!statSync(full).isDirectory()) {
    if (TEXT_FILE.test(entry)) yield entry;
    return;
  }
  for (const name of readdirSync(full).sort()) {
    if (name !== 'node_modules') yield* walk(path.join(entry, name));
  }
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces to '-'. */
const anchorCache = new Map();
function anchorsOf(file) {
  if (!anchorCache.has(file)) {
    const seen = new Map();
    const anchors = new Set();
    let inCode = false; // '# comment' lines in a fenced code block are not headings
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (/^\s*(```|~~~)/.test(line)) inCode = !inCode;
      const heading = !inCode && line.match(/^#{1,6}\s+(.+?)\s*#*\s*$/)?.[1];
      if (!heading) continue;
      const slug = heading
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-');
      const n = seen.get(slug) ?? 0;
      seen.set(slug, n + 1);
      anchors.add(n ? `${slug}-${n}` : slug);
    }
    anchorCache.set(file, anchors);
  }
  return anchorCache.get(file);
}

/** What is wrong with a citation of `page` (a path from the root) and `anchor`, or null. */
function brokenCitation(page, anchor) {
  const file = path.join(root, page);
  if (!existsSync(file)) return `${page} does not exist`;
  if (anchor && !anchorsOf(file).has(anchor)) return `${page} has no heading with the anchor #${anchor}`;
  return null;
}

const problems = new Set(); // a README link to docs/ matches both patterns: reported once
for (const file of SCANNED.flatMap((entry) => [...walk(entry)])) {
  const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
  lines.forEach((line, i) => {
    const where = `${file}:${i + 1}`;
    for (const { pattern, why } of REFUSED) {
      for (const [cited] of line.matchAll(pattern)) {
        problems.add(`${where}: cites '${cited.trim()}', ${why}; cite docs/DESIGN.md#<heading> instead`);
      }
    }
    for (const [cited, page, anchor] of line.matchAll(DOCS_CITATION)) {
      const broken = brokenCitation(path.join('docs', page), anchor);
      if (broken) problems.add(`${where}: cites '${cited}', but ${broken}`);
    }
    if (file.endsWith('.md')) {
      for (const [cited, page, anchor] of line.matchAll(RELATIVE_LINK)) {
        if (!page && !anchor) continue;
        const broken = brokenCitation(path.join(path.dirname(file), page ?? path.basename(file)), anchor);
        if (broken) problems.add(`${where}: links '${cited.slice(2, -1)}', but ${broken}`);
      }
    }
  });
}

if (problems.size) {
  console.error(`References that do not lead into the repository (see docs/DESIGN.md):\n  ${[...problems].join('\n  ')}`);
  process.exit(1);
}
console.log('references ok');
