/**
 * The file name of a session export: `<title or id>.<ext>`, with characters no file system
 * accepts replaced. Shared so the drag data the renderer writes and the file the engine
 * side produces carry the same name.
 */
const EXTENSIONS = { json: 'json', markdown: 'md', html: 'html' } as const;

export function exportFileName(name: string, format: keyof typeof EXTENSIONS = 'json'): string {
  const safe = name
    .replace(/[\\/:*?"<>|\u0000-\u001f\u007f]/g, '_')
    .replace(/^[.\s]+|[.\s]+$/g, '')
    .slice(0, 120);
  return `${safe || 'session'}.${EXTENSIONS[format]}`;
}
