/**
 * The agents `loom --import-from` reads (docs/DESIGN.md#importing-from-other-agents): where
 * each keeps its sessions, which files in a folder are sessions, and the importer that
 * turns one file into conversations; for an agent that keeps them in a database or a
 * storage tree, how its location is searched and what each file found there holds.
 */
import path from 'node:path';
import { parseClaudeCode } from './claude-code';
import { parseCodex } from './codex';
import { parseGoose } from './goose-files';
import { gooseUnits, isGooseFile } from './goose-units';
import type { ParsedFile } from './imported';
import { parseOpencode } from './opencode';
import { locateOpencode, opencodeUnits } from './opencode-units';
import { parsePi } from './pi';
import type { UnitsFound } from './units';
import { IMPORT_SOURCES, type ImportSourceInfo, type ImportSourceName } from '../../shared/import-sources';

export interface ImportSource {
  name: ImportSourceName;
  /** Under the home folder. */
  defaultLocation: string;
  isSessionFile: (file: string) => boolean;
  parse: (text: string, file: string) => ParsedFile;
  /** The files to read at a location, when not every session file under it (session-files.ts). */
  locate?: (location: string) => Promise<string[]>;
  /** What one file found holds, when not one session file for `parse`: a database's sessions, say. */
  unitsIn?: (file: string) => Promise<UnitsFound>;
}

const SOURCES: Record<ImportSourceName, ImportSource> = {
  'claude-code': {
    name: 'claude-code',
    defaultLocation: '.claude/projects',
    isSessionFile: (file) => file.endsWith('.jsonl'),
    parse: parseClaudeCode,
  },
  codex: {
    name: 'codex',
    defaultLocation: '.codex/sessions',
    isSessionFile: (file) => /^rollout-.*\.jsonl$/.test(path.basename(file)),
    parse: parseCodex,
  },
  pi: {
    name: 'pi',
    defaultLocation: '.pi/agent/sessions',
    isSessionFile: (file) => file.endsWith('.jsonl'),
    parse: parsePi,
  },
  opencode: {
    name: 'opencode',
    defaultLocation: '.local/share/opencode',
    isSessionFile: (file) => file.endsWith('.json'),
    parse: parseOpencode,
    locate: locateOpencode,
    unitsIn: opencodeUnits,
  },
  goose: {
    name: 'goose',
    defaultLocation: '.local/share/goose/sessions',
    isSessionFile: isGooseFile,
    parse: parseGoose,
    unitsIn: gooseUnits,
  },
};

export function importSource(name: ImportSourceName): ImportSource {
  return SOURCES[name];
}

/** Every source as a window offers it, with its default location in full under `home`. */
export function importSourceList(home: string): ImportSourceInfo[] {
  return IMPORT_SOURCES.map((name) => {
    return { source: name, defaultLocation: path.join(home, SOURCES[name].defaultLocation) };
  });
}
