import { fenceTagPattern } from '../../shared/fences';

/**
 * Stored text the model wrote or read earlier (memories, old transcripts) comes back as
 * data, not instructions: it is fenced in a tag that says so, and any copy of the tag
 * inside the text (whatever its case and the invisible characters inside) is defused so
 * the text cannot end the fence early.
 */
export function dataBlock(tag: string, note: string, body: string): string {
  const safe = body.replace(fenceTagPattern([tag], '<'), '&lt;$1');
  return `<${tag} note="${note}">\n${safe}\n</${tag}>`;
}
