// Writes src/core/security/secret-rules.generated.ts: the regular expressions of the
// scanner rules in @secretlint/secretlint-rule-preset-recommend (a devDependency), so that
// redaction at run time is one synchronous regex pass instead of secretlint's async linter.
//
// Each rule's patterns are taken from secretlint's own code, not copied by hand: the rule
// is run on a probe text while String/RegExp matching methods are watched, and every
// regular expression applied to the probe text is a pattern of that rule. For each pattern
// the script also works out literal words one of which any match must contain (its keywords), which
// lets redactSecrets skip, in one scan, the text that holds none of them.
//
// Regenerate after changing the preset's version: `node scripts/generate-secret-rules.mjs`;
// `--check` only compares, and fails when the checked-in module is out of date.
import { creator as preset } from '@secretlint/secretlint-rule-preset-recommend';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = path.join(root, 'src/core/security/secret-rules.generated.ts');
const presetName = '@secretlint/secretlint-rule-preset-recommend';
const presetVersion = JSON.parse(readFileSync(path.join(root, 'node_modules', presetName, 'package.json'), 'utf8')).version;

/** No secret in it, so only the scanning patterns run (validators run on matches only). */
const PROBE = 'probe text without any secret in it';
/** Some rules pick their patterns by file name (package.json, .npmrc): probe as each. */
const PROBE_FILES = [undefined, '.npmrc'];
/** The AWS rule scans for access key ids only with this option; Loom wants them hidden too. */
const RULE_OPTIONS = { enableIDScanRule: true };
/** Not a secret format: it honours `secretlint-disable` comments in linted files. */
const NOT_SECRETS = new Set(['@secretlint/secretlint-rule-filter-comments']);
/** A keyword shorter than this would make the pre-check pass on most text. */
const MIN_KEYWORD = 3;

/** Runs `run` while recording each RegExp applied to the probe text. */
async function patternsUsedBy(run) {
  const seen = new Map();
  const record = (subject, re) => {
    if (subject === PROBE && re instanceof RegExp) seen.set(`/${re.source}/${re.flags}`, re);
  };
  const watched = [
    [String.prototype, ['matchAll', 'match', 'replace', 'replaceAll', 'search', 'split'], (self, args) => record(String(self), args[0])],
    [RegExp.prototype, ['exec', 'test'], (self, args) => record(String(args[0]), self)],
  ];
  const originals = [];
  for (const [proto, names, spy] of watched) {
    for (const name of names) {
      const original = proto[name];
      originals.push([proto, name, original]);
      proto[name] = function (...args) {
        spy(this, args);
        return original.apply(this, args);
      };
    }
  }
  try {
    await run();
  } finally {
    for (const [proto, name, original] of originals) proto[name] = original;
  }
  return [...seen.values()];
}

const context = { createTranslator: () => (id) => id, report: () => {}, ignore: () => {} };

async function extractRules() {
  const extracted = [];
  for (const rule of preset.rules) {
    if (rule.meta.type !== 'scanner' || NOT_SECRETS.has(rule.meta.id)) continue;
    const handlers = rule.create(context, RULE_OPTIONS);
    const patterns = await patternsUsedBy(async () => {
      for (const filePath of PROBE_FILES) await handlers.file?.({ content: PROBE, filePath, contentType: 'text' });
    });
    extracted.push({ id: rule.meta.id, patterns });
  }
  return extracted;
}

// --- keywords: the literal text every match of a pattern starts with ---------------------

/** Splits a pattern (or group body) at its top-level `|`. */
function alternatives(source) {
  const parts = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (c === '[') i = classEnd(source, i);
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) {
      parts.push(source.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(source.slice(start));
  return parts;
}

function classEnd(source, open) {
  for (let i = open + 1; i < source.length; i++) {
    if (source[i] === '\\') i++;
    else if (source[i] === ']') return i;
  }
  throw new Error(`unclosed class in ${source}`);
}

function groupEnd(source, open) {
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (c === '[') i = classEnd(source, i);
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  throw new Error(`unclosed group in ${source}`);
}

/** One atom at `i`: its kind, its text (a literal character or a group body) and where it ends. */
function atomAt(source, i) {
  const c = source[i];
  if (c === '\\') {
    const next = source[i + 1];
    if (/[bB]/.test(next)) return { kind: 'assertion', end: i + 2 };
    if (/[dDwWsSpPuxck0-9]/.test(next)) return { kind: 'class', end: next === 'p' || next === 'P' ? source.indexOf('}', i) + 1 : i + 2 };
    return { kind: 'literal', text: next, end: i + 2 };
  }
  if (c === '[') return { kind: 'class', end: classEnd(source, i) + 1 };
  if (c === '(') {
    const close = groupEnd(source, i);
    const head = source.slice(i, i + 4);
    if (head.startsWith('(?<!') || head.startsWith('(?<=') || head.startsWith('(?=') || head.startsWith('(?!')) return { kind: 'assertion', end: close + 1 };
    const body = source.slice(i + 1, close).replace(/^\?:|^\?<[A-Za-z]\w*>/, '');
    return { kind: 'group', text: body, end: close + 1 };
  }
  if (c === '^' || c === '$') return { kind: 'assertion', end: i + 1 };
  if (c === '.') return { kind: 'class', end: i + 1 };
  return { kind: 'literal', text: c, end: i + 1 };
}

/** `?`, `*` and `{0,…}` make an atom optional; any quantifier ends a literal run. */
function quantifierAt(source, i) {
  const match = /^(?:[?*+]|\{(\d+)(?:,\d*)?\})\??/.exec(source.slice(i));
  if (!match) return { optional: false, repeated: false, end: i };
  const optional = match[0][0] === '?' || match[0][0] === '*' || match[1] === '0';
  return { optional, repeated: true, end: i + match[0].length };
}

/**
 * Literal words one of which every match of `source` contains: per alternative, its longest
 * run of required literal characters, or, when that is too short, the words of its first
 * required group. Zero-width assertions and optional atoms contribute nothing.
 */
function requiredWords(source) {
  return alternatives(source).flatMap((branch) => {
    const runs = [''];
    let firstGroup;
    for (let i = 0; i < branch.length;) {
      const atom = atomAt(branch, i);
      const quantifier = quantifierAt(branch, atom.end);
      i = quantifier.end;
      const required = atom.kind !== 'assertion' && !quantifier.optional;
      if (required && atom.kind === 'literal') runs[runs.length - 1] += atom.text;
      if (required && atom.kind === 'group') firstGroup ??= atom.text;
      // A repeated or optional character, or anything not literal, ends the run.
      if (atom.kind !== 'assertion' && (atom.kind !== 'literal' || quantifier.repeated)) runs.push('');
    }
    const longest = runs.reduce((a, b) => (b.length > a.length ? b : a));
    if (longest.length < MIN_KEYWORD && firstGroup !== undefined) return requiredWords(firstGroup);
    return [longest];
  });
}

function keywordsOf(ruleId, pattern) {
  const keywords = [...new Set(requiredWords(pattern.source).map((k) => k.toLowerCase()))];
  const short = keywords.filter((k) => k.length < MIN_KEYWORD);
  if (short.length) throw new Error(`${ruleId}: no usable keyword in /${pattern.source}/ (found ${JSON.stringify(keywords)})`);
  return keywords;
}

// --- output ----------------------------------------------------------------------------

function render(rules) {
  const entries = rules.flatMap(({ id, patterns }) =>
    patterns.map((pattern) => {
      const secretGroup = /\(\?<password>/.test(pattern.source) ? `, secretGroup: 'password'` : '';
      return `  { rule: '${id}', pattern: /${pattern.source}/${pattern.flags}, keywords: ${JSON.stringify(keywordsOf(id, pattern))}${secretGroup} },`;
    }),
  );
  const withoutPatterns = rules.filter((r) => r.patterns.length === 0).map((r) => r.id);
  return `// Generated by scripts/generate-secret-rules.mjs from ${presetName} ${presetVersion}.
// Do not edit: change the preset's version in package.json and run the script again.
// Rules that check whole files rather than patterns (nothing to extract): ${withoutPatterns.join(', ') || 'none'}.
import type { SecretPattern } from './secret-pattern';

export const SECRETLINT_PATTERNS: SecretPattern[] = [
${entries.join('\n')}
];
`;
}

const generated = render(await extractRules());
const relative = path.relative(root, target);
if (process.argv.includes('--check')) {
  const current = readFileSync(target, 'utf8');
  if (current !== generated) {
    console.error(`${relative} is out of date with ${presetName} ${presetVersion}: run node scripts/generate-secret-rules.mjs`);
    process.exit(1);
  }
  console.log(`${relative} is up to date with ${presetName} ${presetVersion}`);
} else {
  writeFileSync(target, generated);
  console.log(`wrote ${relative} from ${presetName} ${presetVersion}`);
}
