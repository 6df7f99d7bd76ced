/**
 * What goose keeps in its sessions folder (`~/.local/share/goose/sessions`;
 * docs/DESIGN.md#importing-from-other-agents): `sessions.db` since its move to SQLite, the
 * legacy `<id>.jsonl` files from before, and what `goose session export` wrote.
 */
import { gooseDatabaseUnits } from './goose-db';
import { parseGoose } from './goose-files';
import { fileUnit, singleFile, type UnitsFound } from './units';

export function isGooseFile(file: string): boolean {
  return file.endsWith('.jsonl') || file.endsWith('.json') || /(^|[\\/])sessions\.db$/.test(file);
}

export async function gooseUnits(file: string): Promise<UnitsFound> {
  return file.endsWith('.db') ? gooseDatabaseUnits(file) : singleFile(fileUnit(file, parseGoose));
}
