/**
 * Where opencode's sessions are at an import's location (docs/DESIGN.md#importing-from-other-agents):
 * its data folder (`~/.local/share/opencode`: the database and the older storage tree, and
 * nothing else of what is kept there, as the snapshots and downloaded tools), the storage
 * folder, a database, or export files and folders of them; and what each file found holds.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseOpencode } from './opencode';
import { isOpencodeDatabase, opencodeDatabaseUnits } from './opencode-db';
import { storageRootOf, storageSessionUnit } from './opencode-storage';
import { sessionFiles } from './session-files';
import { fileUnit, singleFile, type UnitsFound } from './units';

const isJson = (file: string) => file.endsWith('.json');

export async function locateOpencode(location: string): Promise<string[]> {
  const names = await folderEntries(location);
  if (!names) return sessionFiles(location, isJson); // a file, or nothing (refused there)
  if (names.has('storage') || [...names].some(isOpencodeDatabase)) {
    const databases = [...names].filter(isOpencodeDatabase).map((name) => path.join(location, name));
    const storage = path.join(location, 'storage', 'session');
    return [...databases.sort(), ...((await isFolder(storage)) ? await sessionFiles(storage, isJson) : [])];
  }
  if (names.has('session') && names.has('message')) return sessionFiles(path.join(location, 'session'), isJson);
  return sessionFiles(location, isJson);
}

export async function opencodeUnits(file: string): Promise<UnitsFound> {
  if (file.endsWith('.db')) return opencodeDatabaseUnits(file);
  const root = await storageRootOf(file);
  return singleFile(root ? storageSessionUnit(file, root) : fileUnit(file, parseOpencode));
}

/** The names in a folder; undefined when the location is not a folder. */
async function folderEntries(location: string): Promise<Set<string> | undefined> {
  if (!(await isFolder(location))) return undefined;
  return new Set(await fs.readdir(location).catch(() => []));
}

async function isFolder(location: string): Promise<boolean> {
  return (await fs.stat(location).catch(() => undefined))?.isDirectory() === true;
}
