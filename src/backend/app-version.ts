/**
 * Loom's version, from the package.json above wherever this code runs (the source tree,
 * dist/, out/main/): bundled builds sit at different depths, so walk up to find it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function appVersion(from: string = path.dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'loom' && pkg.version) return pkg.version;
    } catch {
      // No package.json here: keep walking up.
    }
    if (path.dirname(dir) === dir) return 'unknown';
  }
}
