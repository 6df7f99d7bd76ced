/**
 * The agents `loom --import-from` reads (docs/DESIGN.md#importing-from-other-agents): where
 * each keeps its sessions, how its files are found there, and how each is read: a session
 * file by its importer, or, for an agent that keeps its sessions in a database or a storage
 * tree, what each file found holds.
 */
import path from 'node:path';
import { parseClaudeCode } from './claude-code';
import { isCodexHeader, parseCodex } from './codex';
import { parseGeminiCheckpoint } from './gemini-checkpoint';
import { parseGeminiRecording } from './gemini-recording';
import { gooseUnits, isGooseFile } from './goose-units';
import { locateOpencode, opencodeUnits } from './opencode-units';
import { parsePi } from './pi';
import type { FileParser, UnitsFound } from './units';
import { IMPORT_SOURCES, type ImportSourceInfo, type ImportSourceName } from '../../shared/import-sources';

/** How the files to read at a location are found. */
type Finding =
  /** Every file under it that is one (session-files.ts). */
  | { isSessionFile: (file: string) => boolean; locate?: undefined }
  /** The source's own search, when not every such file is a session. */
  | { locate: (location: string) => Promise<string[]>; isSessionFile?: undefined };

/** How each file found is read. */
type Reading =
  /** One session file, parsed by the source's importer. */
  | {
      parse: FileParser;
      /** For a source whose files cannot be told by name: whether a file's first line (undefined: too long) begins one of its sessions. */
      isSessionStart?: (firstLine: string | undefined) => boolean;
      unitsIn?: undefined;
    }
  /** What one file holds when it need not be one session file: a database's sessions, say. */
  | { unitsIn: (file: string) => Promise<UnitsFound>; parse?: undefined; isSessionStart?: undefined };

export type ImportSource = {
  name: ImportSourceName;
  /** Under the home folder. */
  defaultLocation: string;
  /** Sub-agent transcripts: imported after the other files, so the session that started each is there to be its parent. */
  isSubAgentFile?: (file: string) => boolean;
} & Finding &
  Reading;

/** <project>/chats/session-*.json(l) (recordings; .json before JSON Lines) and <project>/checkpoint-<tag>.json (`/chat save`). */
const GEMINI_FILE = /^(session-.*\.jsonl?|checkpoint-.*\.json)$/;

/** A sub-agent's recording: chats/<parent session id>/<id>.jsonl. */
function isGeminiSubAgentFile(file: string): boolean {
  return file.endsWith('.jsonl') && path.basename(path.dirname(path.dirname(file))) === 'chats';
}

const SOURCES: Record<ImportSourceName, ImportSource> = {
  'claude-code': {
    name: 'claude-code',
    defaultLocation: '.claude/projects',
    isSessionFile: (file) => file.endsWith('.jsonl'),
    // Beside the sessions (agent-<8 hex>.jsonl, up to 2.0) or under them (<session>/subagents/agent-<id>.jsonl).
    isSubAgentFile: (file) => path.basename(file).startsWith('agent-'),
    parse: parseClaudeCode,
  },
  codex: {
    name: 'codex',
    defaultLocation: '.codex/sessions',
    // Any name: a user's copies are rarely still called rollout-*.jsonl; the header tells.
    isSessionFile: (file) => file.endsWith('.jsonl'),
    isSessionStart: isCodexHeader,
    parse: parseCodex,
  },
  'gemini-cli': {
    name: 'gemini-cli',
    defaultLocation: '.gemini/tmp',
    isSessionFile: (file) => GEMINI_FILE.test(path.basename(file)) || isGeminiSubAgentFile(file),
    isSubAgentFile: isGeminiSubAgentFile,
    parse: (text, file, modifiedAt) =>
      path.basename(file).startsWith('checkpoint-') ? parseGeminiCheckpoint(text, file, modifiedAt) : parseGeminiRecording(text, file),
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
    // Its database, its storage tree's sessions, or `opencode export` files (opencode-units.ts).
    locate: locateOpencode,
    unitsIn: opencodeUnits,
  },
  goose: {
    name: 'goose',
    defaultLocation: '.local/share/goose/sessions',
    isSessionFile: isGooseFile,
    // Its sessions.db, or its session files (goose-units.ts).
    unitsIn: gooseUnits,
  },
};

export function importSource(name: ImportSourceName): ImportSource {
  return SOURCES[name];
}

/** Every source as a window offers it, with its default location in full under `home`. */
export function importSourceList(home: string): ImportSourceInfo[] {
  return IMPORT_SOURCES.map((name) => ({ source: name, defaultLocation: path.join(home, SOURCES[name].defaultLocation) }));
}
