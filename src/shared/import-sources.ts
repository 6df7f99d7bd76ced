/**
 * The agents Loom imports sessions from (docs/DESIGN.md#importing-from-other-agents), by
 * name: shared by `loom --import-from` and the window's "Import from…" dialog, and apart
 * from core/import/sources.ts (the importers) so that parsing the command line loads no
 * importer (docs/ARCHITECTURE.md#the-node-build).
 */
export const IMPORT_SOURCES = ['claude-code', 'codex', 'gemini-cli', 'pi', 'opencode', 'goose'] as const;
export type ImportSourceName = (typeof IMPORT_SOURCES)[number];

/** Each source as its users call it. */
export const IMPORT_SOURCE_LABELS: Record<ImportSourceName, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  'gemini-cli': 'Gemini CLI',
  pi: 'pi',
  opencode: 'opencode',
  goose: 'goose',
};

/** Longest path the window's dialog takes (Linux's PATH_MAX). */
export const MAX_IMPORT_PATH = 4096;

/** A source as the dialog offers it: where it is read from when no path is given. */
export interface ImportSourceInfo {
  source: ImportSourceName;
  /** The full default location. */
  defaultLocation: string;
}

/** How an import went, as `loom --import-from` prints it: the refusals (the first few), then the one summary line. */
export interface ImportReport {
  refused: string[];
  summary: string;
}
