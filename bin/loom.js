#!/usr/bin/env node
// The `loom` command. The code lives in dist/, built by `npm install` (prepare).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The floor of package.json's engines (test/scripts/node-floor.test.ts keeps them equal):
// checked before the bundle loads, whose SQLite module crashes an older Node outright.
const MIN_NODE = [22, 12];
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1])) {
  console.error(
    `loom: needs Node.js ${MIN_NODE.join('.')} or newer, and this is ${process.versions.node}: install Node.js 24 LTS (https://nodejs.org/, or \`nvm install 24\`).`,
  );
  process.exit(1);
}
const entry = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
if (!existsSync(entry)) {
  console.error('loom: not built yet; run `npm run build:node` in the Loom checkout.');
  process.exit(1);
}
await import(entry);
