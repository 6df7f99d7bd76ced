/**
 * opencode's storage tree, what it kept before SQLite (docs/DESIGN.md#importing-from-other-agents):
 * `<storage>/session/<projectID>/<sessionID>.json` (Session.Info),
 * `<storage>/message/<sessionID>/<messageID>.json` and `<storage>/part/<messageID>/<partID>.json`,
 * each one object with its ids. A session is one unit: its file, its messages' and their
 * parts' files, read back into the shape `opencode export` prints (ids are time-ordered, so
 * file names give the order).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { LoomError } from '../errors';
import { MAX_ENTRY_DEPTH, emptyParse, isRecord, nestedTooDeeply, str, type ParsedFile } from './imported';
import { readOpencodeSession } from './opencode';
import { contentHash, readRegularFile, type ImportUnit } from './units';

/** The storage folder of a session file laid out as opencode's (`<storage>/session/<projectID>/<id>.json`), else undefined. */
export async function storageRootOf(file: string): Promise<string | undefined> {
  const sessions = path.dirname(path.dirname(file));
  if (path.basename(sessions) !== 'session') return undefined;
  const root = path.dirname(sessions);
  const message = await fs.stat(path.join(root, 'message')).catch(() => undefined);
  return message?.isDirectory() ? root : undefined;
}

/**
 * One session of the tree. Its stamp is the session file's (opencode rewrites it as the
 * session goes on) with the time its message folder last gained a file: the tree is what
 * opencode wrote before it moved to SQLite, so what is there seldom changes.
 */
export function storageSessionUnit(file: string, root: string): ImportUnit {
  const messageDir = (id: string) => path.join(root, 'message', id);
  return {
    key: file,
    stamp: async () => {
      const session = await fs.stat(file);
      const messages = await fs.stat(messageDir(path.basename(file, '.json'))).catch(() => undefined);
      return { size: session.size, mtimeMs: Math.max(session.mtimeMs, messages?.mtimeMs ?? 0) };
    },
    load: async () => {
      const parsed = emptyParse();
      const hash = contentHash();
      const info = await readObject(file, parsed, hash);
      if (!info) throw new LoomError('not an opencode session file', 'import_unreadable');
      const id = str(info.id) ?? path.basename(file, '.json');
      const messages: Record<string, unknown>[] = [];
      for (const messageFile of await jsonFilesIn(messageDir(id))) {
        const message = await readObject(messageFile, parsed, hash);
        if (!message) continue;
        const parts: Record<string, unknown>[] = [];
        for (const partFile of await jsonFilesIn(path.join(root, 'part', str(message.id) ?? path.basename(messageFile, '.json')))) {
          const part = await readObject(partFile, parsed, hash);
          if (part) parts.push(part);
        }
        messages.push({ info: message, parts });
      }
      return {
        hash: hash.digest(),
        parse: () => {
          readOpencodeSession({ info, messages }, file, parsed);
          return parsed;
        },
      };
    },
  };
}

/** The `.json` files of a folder in name order; none when it is missing. */
async function jsonFilesIn(folder: string): Promise<string[]> {
  try {
    const entries = await fs.readdir(folder, { withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
      .map((entry) => path.join(folder, entry.name))
      .sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** One file's object; a file that is not one (or nests too deeply) is refused with its name. */
async function readObject(file: string, parsed: ParsedFile, hash: ReturnType<typeof contentHash>): Promise<Record<string, unknown> | undefined> {
  const text = await readRegularFile(file);
  hash.add(file);
  hash.add(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    parsed.refused.push(`${file}:1: not valid JSON, skipped`);
    return undefined;
  }
  if (!isRecord(value)) parsed.refused.push(`${file}:1: not a JSON object, skipped`);
  else if (nestedTooDeeply(value)) parsed.refused.push(`${file}:1: nested deeper than ${MAX_ENTRY_DEPTH} levels, skipped`);
  else return value;
  return undefined;
}
