/**
 * JSON Lines as the importers read them: one value per line, a line that is not JSON
 * refused with its file and line number and skipped (an agent writing the file may have
 * left its last line half written), blank lines ignored. A line nested too deeply is
 * refused the same way, so it costs only itself.
 */
import { MAX_ENTRY_DEPTH, isRecord, nestedTooDeeply, type ParsedFile } from './imported';

export interface JsonLine {
  /** 1-based, as an editor shows it. */
  line: number;
  value: Record<string, unknown>;
}

export function readJsonLines(text: string, file: string, parsed: ParsedFile): JsonLine[] {
  const lines: JsonLine[] = [];
  text.split('\n').forEach((raw, index) => {
    if (!raw.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      parsed.refused.push(`${file}:${index + 1}: not valid JSON, skipped`);
      return;
    }
    if (nestedTooDeeply(value)) parsed.refused.push(`${file}:${index + 1}: nested deeper than ${MAX_ENTRY_DEPTH} levels, skipped`);
    else if (isRecord(value)) lines.push({ line: index + 1, value });
    else parsed.refused.push(`${file}:${index + 1}: not a JSON object, skipped`);
  });
  return lines;
}
