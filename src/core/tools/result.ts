/** The cap on what one tool call hands back to the model. */
export const MAX_TOOL_RESULT_CHARS = 32_768;

/** Cuts a result to at most `max` characters, the notice included, saying how long it was. */
export function truncateToolResult(text: string, max: number = MAX_TOOL_RESULT_CHARS): string {
  if (text.length <= max) return text;
  const notice = `\n[Result truncated: showing the first part of ${text.length} characters; the limit is ${max}.]`;
  let head = text.slice(0, Math.max(0, max - notice.length));
  // Never leave half of a surrogate pair at the cut.
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  return head + notice;
}
