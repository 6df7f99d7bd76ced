#!/usr/bin/env node
// The `loom` command. The code lives in dist/, built by `npm install` (prepare).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
if (!existsSync(entry)) {
  console.error('loom: not built yet; run `npm run build:node` in the Loom checkout.');
  process.exit(1);
}
await import(entry);
