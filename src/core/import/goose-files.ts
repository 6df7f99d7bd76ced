/**
 * goose's session files (docs/DESIGN.md#importing-from-other-agents): the legacy
 * `<id>.jsonl` (line 1 may be the SessionMetadata, every other line one Message; goose reads
 * a first line that is not metadata as a message) and the one JSON object
 * `goose session export --format json` prints (the Session: snake_case fields, its
 * messages in `conversation`).
 */
import path from 'node:path';
import { emptyParse, isRecord, isoTime, nestedTooDeeply, MAX_ENTRY_DEPTH, readJsonDocument, str, type ParsedFile } from './imported';
import { gooseUsage, readGooseSession } from './goose';
import { readJsonLines } from './jsonl';

export function parseGoose(text: string, file: string): ParsedFile {
  return file.endsWith('.jsonl') ? parseLegacy(text, file) : parseExport(text, file);
}

function parseLegacy(text: string, file: string): ParsedFile {
  const parsed = emptyParse();
  const lines = readJsonLines(text, file, parsed);
  const first = lines[0]?.value;
  const metadata = first && !('role' in first) && !('content' in first) ? first : undefined;
  readGooseSession(
    {
      id: path.basename(file, '.jsonl'),
      name: str(metadata?.description) ?? null,
      workingDir: str(metadata?.working_dir) ?? null,
      ...(metadata && { usage: gooseUsage(metadata) }),
      messages: lines.slice(metadata ? 1 : 0).map(({ line, value }) => ({ value, where: `${file}:${line}` })),
    },
    parsed,
  );
  return parsed;
}

function parseExport(text: string, file: string): ParsedFile {
  const parsed = emptyParse();
  const doc = readJsonDocument(text, file, 'what `goose session export --format json` prints', parsed);
  if (doc === undefined) return parsed;
  const conversation = isRecord(doc) ? (isRecord(doc.conversation) ? doc.conversation.messages : doc.conversation) : undefined;
  if (!isRecord(doc) || !Array.isArray(conversation)) {
    parsed.refused.push(`${file}:1: not a goose session export ({"id": …, "conversation": […]}), skipped`);
    return parsed;
  }
  const messages: { value: Record<string, unknown>; where: string }[] = [];
  for (const [index, value] of (conversation as unknown[]).entries()) {
    const where = `${file}: message ${index + 1}`;
    if (nestedTooDeeply(value)) parsed.refused.push(`${where} nested deeper than ${MAX_ENTRY_DEPTH} levels, skipped`);
    else if (isRecord(value)) messages.push({ value, where });
    else parsed.refused.push(`${where}: not a JSON object, skipped`);
  }
  readGooseSession(
    {
      id: str(doc.id) ?? path.basename(file, '.json'),
      name: str(doc.name) ?? str(doc.description) ?? null,
      workingDir: str(doc.working_dir) ?? null,
      createdAt: isoTime(doc.created_at),
      updatedAt: isoTime(doc.updated_at),
      usage: gooseUsage(doc),
      messages,
    },
    parsed,
  );
  return parsed;
}
