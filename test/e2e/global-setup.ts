/**
 * Builds what the end-to-end tests use, once: the UI (out/renderer, served by the browser
 * mode) and the `loom` command (dist/cli.js, to compare exports with `loom --export`).
 */
import { execFileSync } from 'node:child_process';

export default function globalSetup(): void {
  execFileSync(process.execPath, ['scripts/web.mjs', '--build-only'], { stdio: 'inherit' });
  execFileSync(process.execPath, ['scripts/build-node.mjs'], { stdio: 'inherit' });
}
