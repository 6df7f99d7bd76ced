/**
 * The file name of a session export: `<title>.<ext>` (else its listing summary, else
 * "Session <id prefix>", as the sidebar labels it), with characters no file system accepts
 * replaced. Every export file name is made here: the Export menu's download, the browser's
 * drag link and the desktop's dragged file.
 */
/** The JSON export is a Loom session file: `.loom`, which the desktop app opens (docs/RELEASING.md). */
const EXTENSIONS = { json: 'loom', markdown: 'md', html: 'html' } as const;

/** The formats a session exports to; here, apart from the contract, so the `loom` command reads them without zod. */
export const EXPORT_FORMATS = ['json', 'markdown', 'html'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export function exportFileName(meta: { id: string; title: string | null; summary: string | null }, format: ExportFormat = 'json'): string {
  const name = meta.title || meta.summary || `Session ${meta.id.slice(0, 8)}`;
  const safe = name
    .replace(/[\\/:*?"<>|\u0000-\u001f\u007f]/g, '_')
    .replace(/^[.\s]+|[.\s]+$/g, '')
    .slice(0, 120);
  return `${safe || 'session'}.${EXTENSIONS[format]}`;
}
