/**
 * The agents `loom --import-from` reads (docs/DESIGN.md#importing-from-other-agents): where
 * each keeps its sessions, which files in a folder are sessions, and the importer that
 * turns one file into conversations.
 */
import path from 'node:path';
import { parseClaudeCode } from './claude-code';
import { isCodexHeader, parseCodex } from './codex';
import { parseGeminiCheckpoint } from './gemini-checkpoint';
import { parseGeminiRecording } from './gemini-recording';
import type { ParsedFile } from './imported';
import { parseOpencode } from './opencode';
import { parsePi } from './pi';
import { IMPORT_SOURCES, type ImportSourceInfo, type ImportSourceName } from '../../shared/import-sources';

export interface ImportSource {
  name: ImportSourceName;
  /** Under the home folder; undefined when the tool keeps nothing Loom can read (PATH is needed). */
  defaultLocation?: string;
  /** Why there is no default location, and what to give instead. */
  noDefault?: string;
  isSessionFile: (file: string) => boolean;
  /** Sub-agent transcripts: imported after the other files, so the session that started each is there to be its parent. */
  isSubAgentFile?: (file: string) => boolean;
  /** For a source whose files cannot be told by name: whether a file's first line (undefined: too long) begins one of its sessions. */
  isSessionStart?: (firstLine: string | undefined) => boolean;
  /** `modifiedAt`: the file's mtime, for a source that records no times of its own. */
  parse: (text: string, file: string, modifiedAt: string) => ParsedFile;
}

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
    noDefault:
      'opencode keeps its sessions in its own database; export one with `opencode export <id> > session.json` and give that file (or a folder of them)',
    isSessionFile: (file) => file.endsWith('.json'),
    parse: parseOpencode,
  },
};

export function importSource(name: ImportSourceName): ImportSource {
  return SOURCES[name];
}

/** Every source as a window offers it, with its default location in full under `home`. */
export function importSourceList(home: string): ImportSourceInfo[] {
  return IMPORT_SOURCES.map((name) => {
    const { defaultLocation, noDefault } = SOURCES[name];
    return { source: name, defaultLocation: defaultLocation === undefined ? null : path.join(home, defaultLocation), noDefault: noDefault ?? null };
  });
}
