import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The data directory shared by the CLI, the desktop app and the browser mode:
 * an explicit directory, else LOOM_HOME, else the desktop app's userData folder.
 */
export function resolveDataDir(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit) return path.resolve(explicit);
  if (env.LOOM_HOME) return path.resolve(env.LOOM_HOME);
  return defaultUserDataDir(env);
}

function defaultUserDataDir(env: NodeJS.ProcessEnv): string {
  const home = os.homedir();
  switch (process.platform) {
    case 'darwin':
      return path.join(home, 'Library', 'Application Support', 'Loom');
    case 'win32':
      return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Loom');
    default:
      return path.join(env.XDG_CONFIG_HOME ?? path.join(home, '.config'), 'Loom');
  }
}

/** Creates a private folder (0700), parents included. */
export function ensurePrivateDir(dir: string): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}
