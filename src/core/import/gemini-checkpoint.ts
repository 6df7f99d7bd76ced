/**
 * Gemini CLI's `/chat save <tag>` checkpoints (docs/DESIGN.md#importing-from-other-agents):
 * ~/.gemini/tmp/<project>/checkpoint-<tag>.json, the model's history as Gemini's API takes
 * it ({history: Content[], authType?}; older ones the bare list), each content {role:
 * "user" | "model", parts}. It records no times: every message is as old as the file. A
 * content's key is its position and a hash of it, so a checkpoint saved again under the
 * same tag grows where it went on and forks where it was rewritten.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import {
  MAX_ENTRY_DEPTH,
  assistant,
  emptyParse,
  isRecord,
  nestedTooDeeply,
  noteNotUnderstood,
  readJsonDocument,
  titleFrom,
  type ImportedItem,
  type ParsedFile,
} from './imported';
import { functionCalls, functionResults, isInjectedUserText, partsOf, partsText, WaitingCalls } from './gemini-parts';

export function parseGeminiCheckpoint(text: string, file: string, modifiedAt: string): ParsedFile {
  const parsed = emptyParse();
  const doc = readJsonDocument(text, file, 'a Gemini CLI /chat save checkpoint', parsed);
  if (doc === undefined) return parsed;
  const history = Array.isArray(doc) ? doc : isRecord(doc) && Array.isArray(doc.history) ? (doc.history as unknown[]) : undefined;
  if (!history) {
    parsed.refused.push(`${file}:1: not a Gemini CLI checkpoint ({"history": [...]}), skipped`);
    return parsed;
  }
  const facts = { at: modifiedAt };
  const items: ImportedItem[] = [];
  const waiting = new WaitingCalls();
  let afterInjected = false;
  for (const [index, content] of (history as unknown[]).entries()) {
    if (!isRecord(content)) continue;
    if (nestedTooDeeply(content)) {
      parsed.refused.push(`${file}: history entry ${index + 1} nested deeper than ${MAX_ENTRY_DEPTH} levels, skipped`);
      continue;
    }
    const key = `${index}:${createHash('sha256').update(JSON.stringify(content)).digest('hex').slice(0, 16)}`;
    const parts = partsOf(content.parts);
    if (content.role === 'user') {
      for (const result of functionResults(parts, waiting))
        items.push({ kind: 'message', key: `${key}:${result.callId}`, message: { role: 'tool', tool_call_id: result.callId, content: result.content }, facts });
      const prompt = partsText(parts, parsed);
      afterInjected = parts.every((part) => !isRecord(part.functionResponse)) && isInjectedUserText(prompt);
      if (!isInjectedUserText(prompt)) items.push({ kind: 'message', key, message: { role: 'user', content: prompt }, facts });
    } else if (content.role === 'model') {
      const calls = functionCalls(parts, key);
      // Older versions answered the setup context with a canned "Got it" of their own.
      if (afterInjected && calls.length === 0) continue;
      afterInjected = false;
      items.push({ kind: 'message', key, message: assistant(partsText(parts, parsed) || null, calls), facts });
      waiting.open(calls);
    } else noteNotUnderstood(parsed, `gemini-cli checkpoint role ${JSON.stringify(content.role)}`);
  }
  if (items.length === 0) return parsed;
  const tag = decodeTag(path.basename(file, '.json').slice('checkpoint-'.length));
  parsed.conversations.push({
    // Tags are per project folder: the folder's name (its hash or short id) keeps them apart.
    sourceId: `checkpoint:${path.basename(path.dirname(file))}/${tag}`,
    title: titleFrom(`Saved chat ${tag}`),
    cwd: null,
    model: null,
    createdAt: modifiedAt,
    updatedAt: modifiedAt,
    branches: [items],
  });
  return parsed;
}

/** Gemini CLI percent-encodes a tag for the file name. */
function decodeTag(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}
