// Runs electronegativity (Doyensec's Electron security linter) over src/ for the Electron
// version in use, and fails on any HIGH or MEDIUM finding that docs/SECURITY.md does not
// explain: a finding is explained when its check id and file appear together in a row of
// the "Explained findings" table there. Offline; ~10 s.
//   node scripts/electronegativity.mjs [--json]
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
// The runner as a library: the package's own CLI parses arguments this script does not need.
const run = require('@doyensec/electronegativity/dist/runner.js');
const GATED = new Set(['HIGH', 'MEDIUM']);
const OFFLINE_UNSAFE_CHECK = 'AvailableSecurityFixesGlobalCheck';

function explainedFindings() {
  const text = fs.readFileSync(path.join(root, 'docs/SECURITY.md'), 'utf8');
  const section = text.split(/^## /m).find((s) => s.startsWith('Explained findings')) ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) => line.split('|').map((cell) => cell.trim().replace(/`/g, '')))
    .map((cells) => ({ id: cells[1], file: cells[2] }));
}

async function main() {
  const electronVersion = JSON.parse(fs.readFileSync(path.join(root, 'node_modules/electron/package.json'), 'utf8')).version;
  const result = await run(
    {
      input: path.join(root, 'src'),
      electronVersionOverride: electronVersion,
      isRelative: true,
      isVerbose: false,
      customScan: [],
      // Its check for newer releases fetches GitHub's list and, where the network only half
      // answers, crashes the process; the support window is checked offline instead
      // (scripts/check-electron-support.mjs).
      excludeFromScan: [OFFLINE_UNSAFE_CHECK],
    },
    false,
  );
  const explained = explainedFindings();
  const findings = result.issues.map((issue) => {
    const file = `src/${issue.file}`;
    const severity = issue.severity?.name ?? String(issue.severity);
    const ok = !GATED.has(severity) || explained.some((e) => e.id === issue.id && e.file === file);
    return {
      id: issue.id,
      severity,
      confidence: issue.confidence?.name ?? String(issue.confidence),
      file,
      line: issue.location?.line,
      description: issue.description,
      explained: ok,
    };
  });
  if (process.argv.includes('--json')) console.log(JSON.stringify(findings, null, 2));
  else
    for (const f of findings) console.log(`${f.explained ? 'ok  ' : 'FAIL'} ${f.severity.padEnd(13)} ${f.id.padEnd(28)} ${f.file}:${f.line}  ${f.description}`);
  const failing = findings.filter((f) => !f.explained);
  console.log(`electronegativity (Electron ${electronVersion}): ${findings.length} findings, ${failing.length} HIGH/MEDIUM not explained in docs/SECURITY.md.`);
  process.exit(failing.length ? 1 : 0);
}

main().catch((err) => {
  console.error(`electronegativity: ${err?.message ?? err}`);
  process.exit(1);
});
