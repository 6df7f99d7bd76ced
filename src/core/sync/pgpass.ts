/**
 * The password for a hub from ~/.pgpass (or $PGPASSFILE), as psql finds it: the first line
 * `host:port:database:user:password` matching the connection, `*` matching anything, `\:`
 * and `\\` escaped. Like libpq, a file others may read is ignored (on systems with modes).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HubConfig } from './hub-url';

export function readPgpass(hub: HubConfig, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const file = env.PGPASSFILE ?? path.join(os.homedir(), '.pgpass');
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (!stat?.isFile() || (process.platform !== 'win32' && stat.mode & 0o077)) return undefined;
  const user = hub.user ?? env.PGUSER ?? os.userInfo().username;
  const wanted = [hub.host, String(hub.port), hub.database, user];
  for (const line of fs.readFileSync(file, 'utf8').split(/\r?\n/)) {
    if (!line || line.startsWith('#')) continue;
    const fields = splitFields(line);
    if (fields.length < 5) continue;
    if (wanted.every((value, i) => fields[i] === '*' || fields[i] === value)) return fields.slice(4).join(':');
  }
  return undefined;
}

/** Splits on unescaped colons, undoing `\:` and `\\`. */
function splitFields(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  for (let i = 0; i < line.length; i++) {
    const char = line.charAt(i);
    if (char === '\\' && i + 1 < line.length) field += line.charAt(++i);
    else if (char === ':') {
      fields.push(field);
      field = '';
    } else field += char;
  }
  fields.push(field);
  return fields;
}
