/** The formats `--export` writes: apart from export.ts so that parsing the command line loads no renderer (docs/ARCHITECTURE.md#the-node-build). */
export type ExportFormat = 'json' | 'markdown' | 'html';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['json', 'markdown', 'html'];
