// The oldest Node that runs Loom: package.json's engines floor (bin/loom.js states it too;
// test/scripts/node-floor.test.ts keeps them equal). An older one is refused in one line
// before anything loads, as better-sqlite3 13 crashes Node 20 outright.
import fs from 'node:fs';

export function refuseOldNode() {
  const { engines } = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const [floorMajor, floorMinor] = engines.node.replace('>=', '').split('.').map(Number);
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major > floorMajor || (major === floorMajor && minor >= floorMinor)) return;
  console.error(
    `loom: needs Node.js ${floorMajor}.${floorMinor} or newer, and this is ${process.versions.node}: install Node.js 24 LTS (https://nodejs.org/, or \`nvm install 24\`).`,
  );
  process.exit(1);
}
