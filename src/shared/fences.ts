/**
 * Loom fences the user's words and tool results in tags for the model (core/security/untrusted.ts:
 * `<user_input>`, `<tool_result name="…">`, with such tags inside defused as `&lt;…`). People
 * read what they typed and what the tool said: these undo the fences for everything shown to
 * them (the transcript, search snippets, Markdown and HTML exports).
 */
const USER_FENCE = /^<user_input>\n([\s\S]*)\n<\/user_input>$/;
const TOOL_FENCE = /^<tool_result name="[^"]*">\n([\s\S]*)\n<\/tool_result>$/;
const DEFUSED_TAG = /&lt;(\s*\/?\s*(?:user_input|tool_result|external_document|session_context_data|session_search|session_transcript))(?=[\s/>]|$)/gi;

/** What the user typed, from a stored user message (unchanged when it carries no fence). */
export function userText(content: string): string {
  const match = USER_FENCE.exec(content);
  return match ? restoreTags(match[1]) : content;
}

/** What the tool said, from a stored tool result (unchanged when it carries no fence). */
export function toolText(content: string): string {
  const match = TOOL_FENCE.exec(content);
  return match ? restoreTags(match[1]) : content;
}

/** True when the whole text is one of Loom's user or tool fences. */
export function isFenced(content: string): boolean {
  return USER_FENCE.test(content) || TOOL_FENCE.test(content);
}

/** Tags the fence defused inside the text (`&lt;user_input>`) as the user wrote them. */
export function restoreTags(text: string): string {
  return text.replace(DEFUSED_TAG, '<$1');
}
