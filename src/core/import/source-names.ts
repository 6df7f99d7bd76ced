/**
 * The sources `loom --import-from` knows, by name: apart from sources.ts (their importers)
 * so that parsing the command line loads no importer (docs/ARCHITECTURE.md#the-node-build).
 */
export const IMPORT_SOURCES = ['claude-code', 'codex', 'pi', 'opencode'] as const;
export type ImportSourceName = (typeof IMPORT_SOURCES)[number];
