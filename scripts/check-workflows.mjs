// `npm test`: every GitHub Actions workflow in .github/workflows/ must pass the offline
// schema validator (@action-validator/cli), and every `node <script>` / `npm run <name>` it
// runs must exist here, so a workflow cannot name a step that would fail on the runner.
//   node scripts/check-workflows.mjs [folder]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const folder = path.resolve(process.argv[2] ?? path.join(root, '.github/workflows'));
const validator = path.join(root, 'node_modules/@action-validator/cli/cli.mjs');
const scripts = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts;

/** Problems with the commands a workflow runs: missing script files and npm scripts. */
function missingCommands(text) {
  const problems = [];
  for (const [, file] of text.matchAll(/\bnode\s+((?:scripts|bin)\/[\w./-]+)/g)) {
    if (!fs.existsSync(path.join(root, file))) problems.push(`runs ${file}, which does not exist`);
  }
  for (const [, name] of text.matchAll(/\bnpm run ([\w:-]+)/g)) {
    if (!scripts[name]) problems.push(`runs "npm run ${name}", which package.json does not define`);
  }
  if (/\bnpm test\b/.test(text) && !scripts.test) problems.push('runs "npm test", which package.json does not define');
  return problems;
}

const files = fs.existsSync(folder) ? fs.readdirSync(folder).filter((f) => /\.ya?ml$/.test(f)) : [];
if (files.length === 0) {
  console.error(`check-workflows: no workflow in ${path.relative(root, folder) || '.'}`);
  process.exit(1);
}
let failed = false;
for (const file of files) {
  const full = path.join(folder, file);
  const result = spawnSync(process.execPath, [validator, full], { encoding: 'utf8' });
  const problems = missingCommands(fs.readFileSync(full, 'utf8'));
  if (result.status !== 0) problems.unshift(`is not a valid workflow:\n${result.stdout}${result.stderr}`);
  for (const problem of problems) console.error(`check-workflows: ${file} ${problem}`);
  failed ||= problems.length > 0;
}
if (failed) process.exit(1);
console.log(`check-workflows: ${files.length} workflow${files.length === 1 ? '' : 's'} valid.`);
