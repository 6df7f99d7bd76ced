// `npm test`, first step: names in one line whatever the tests need that this machine
// lacks, before anything is built or run (otherwise the tests just fail, one by one).
//   node scripts/check-prerequisites.mjs
import { spawnSync } from 'node:child_process';
import { findChromium } from './chromium.mjs';

const MIN_NODE = [20, 19];

function missing(env = process.env) {
  const problems = [];
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1]))
    problems.push(`Node.js ${MIN_NODE.join('.')} or newer (this is ${process.versions.node})`);
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
