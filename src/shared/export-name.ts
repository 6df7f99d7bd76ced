/**
 * The file name of a session export: `<title>.<ext>` (else its listing summary, else
 * "Session <id prefix>", as the sidebar labels it), made safe on every operating system.
 * Every export file name is made here: the Export menu's download, the browser's drag link
 * and the desktop's dragged file.
 */
/** The JSON export is a Loom session file: `.loom`, which the desktop app opens (docs/RELEASING.md). */
const EXTENSIONS = { json: 'loom', markdown: 'md', html: 'html' } as const;

/** The formats a session exports to; here, apart from the contract, so the `loom` command reads them without zod. */
export const EXPORT_FORMATS = ['json', 'markdown', 'html'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Characters a name keeps at most: enough to recognise a title. */
const MAX_NAME_CHARS = 120;
/** File systems count bytes (255 at most on most of them): a title of emoji must fit too. */
const MAX_NAME_BYTES = 200;

/**
 * Characters that show nothing: bidi controls (U+202E makes `…fdp.exe` look like `…exe.pdf`),
 * zero-width and other format characters. They go, so the name reads as it is.
 */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}]/gu;
/** What Windows refuses in a name (`<>:"/\|?*`), control characters and line separators. */
const RESERVED = /[\\/:*?"<>|\p{Cc}\u2028\u2029]/gu;
/** Windows and file managers drop leading and trailing dots and spaces; a leading dot hides the file elsewhere. */
const EDGE_DOTS_AND_SPACES = /^[.\s]+|[.\s]+$/gu;
/** Windows' device names, whatever follows the first dot (`CON`, `con.txt`, `LPT1 `): they open a device, not a file. */
const DEVICE_NAME = /^(?:CON|PRN|AUX|NUL|COM[0-9¹²³]|LPT[0-9¹²³])(?=\s*(?:\.|$))/iu;

export function exportFileName(meta: { id: string; title: string | null; summary: string | null }, format: ExportFormat = 'json'): string {
  const name = meta.title || meta.summary || `Session ${meta.id.slice(0, 8)}`;
  return `${safeName(name) || 'session'}.${EXTENSIONS[format]}`;
}

function safeName(name: string): string {
  const visible = name.normalize('NFC').replace(INVISIBLE, '').replace(RESERVED, '_');
  const cut = cutToFit(visible.replace(EDGE_DOTS_AND_SPACES, '')).replace(EDGE_DOTS_AND_SPACES, '');
  return cut.replace(DEVICE_NAME, '$&_');
}

/** Where words begin and end, in any script (CJK included): a long name is cut between words. */
const WORDS = new Intl.Segmenter(undefined, { granularity: 'word' });
/** What a cut name must not end in: the space or punctuation before the word that was cut off. */
const TRAILING_GAP = /[\s\p{P}]+$/u;

/**
 * A name that fits, cut after its last whole word: `Fix the parser` of a long title, not
 * `Fix the pars`. A first word too long to fit is cut between characters.
 */
function cutToFit(name: string): string {
  const fits = cutToCharacters(name);
  if (fits.length === name.length) return name;
  let end = 0;
  for (const { index, segment } of WORDS.segment(name)) {
    if (index + segment.length > fits.length) break;
    end = index + segment.length;
  }
  return fits.slice(0, end).replace(TRAILING_GAP, '') || fits;
}

/** At most MAX_NAME_CHARS characters and MAX_NAME_BYTES bytes of UTF-8, never half a character. */
function cutToCharacters(name: string): string {
  const utf8 = new TextEncoder();
  let kept = '';
  let bytes = 0;
  for (const char of [...name].slice(0, MAX_NAME_CHARS)) {
    bytes += utf8.encode(char).length;
    if (bytes > MAX_NAME_BYTES) break;
    kept += char;
  }
  return kept;
}
