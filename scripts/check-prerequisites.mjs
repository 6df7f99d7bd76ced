// `npm test`, first step: names in one line whatever the tests need that this machine
// lacks, before anything is built or run (otherwise the tests just fail, one by one).
//   node scripts/check-prerequisites.mjs
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { findChromium } from './chromium.mjs';

/** The toolchain's Node: the major in .nvmrc (Node 24 LTS), which `.ci/run` brings where it is missing. */
const NODE_MAJOR = Number(fs.readFileSync(new URL('../.nvmrc', import.meta.url), 'utf8').trim());

function missing(env = process.env) {
  const problems = [];
  const major = Number(process.versions.node.split('.')[0]);
  if (major < NODE_MAJOR)
    problems.push(`Node.js ${NODE_MAJOR} LTS (this is ${process.versions.node}; install it from https://nodejs.org/ or with \`nvm install ${NODE_MAJOR}\`)`);
  const chromium = findChromium(env);
  if (!chromium.path) problems.push(chromium.problem);
  if (process.platform === 'linux' && spawnSync('bwrap', ['--version'], { env }).status !== 0) {
    problems.push('no bubblewrap for the shell sandbox (sudo apt-get install -y bubblewrap)');
  }
  return problems;
}

const problems = missing();
if (problems.length > 0) {
  console.error(`loom: the tests cannot run here: ${problems.join('; ')}.`);
  process.exit(1);
}
