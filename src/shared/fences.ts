/**
 * Loom fences the user's words and tool results in tags for the model (core/security/untrusted.ts:
 * `<user_input>`, `<tool_result name="…">`, each attached text file in `<attached_file name="…">`,
 * with such tags inside defused as `&lt;…`). People read what they typed, the files they
 * attached and what the tool said: these undo the fences for everything shown to them (the
 * transcript, search snippets, Markdown and HTML exports).
 */
import { contentImages, contentText } from './attachments';
import type { UserMessage } from './types';

/** The tags Loom fences untrusted content in; one of them inside the content is defused. */
export const FENCE_TAGS = [
  'user_input',
  'attached_file',
  'tool_result',
  'external_document',
  'session_context_data',
  'session_search',
  'session_transcript',
] as const;

/**
 * Characters that show nothing: zero-width spaces and joiners, the soft hyphen, word
 * joiners, bidi and other format controls, variation selectors, the tag characters.
 * `</tool\u200B_result>` reads as the closing tag to a model as to a person, so a tag
 * with them inside (or around its slash) is matched as the tag.
 */
const INVISIBLE = '[\\p{Default_Ignorable_Code_Point}\\p{Cf}]';

const builtPatterns = new Map<string, RegExp>();

/**
 * `opener` (`<`, or the `&lt;` it was defused to) followed by one of `tags`, whatever the
 * case, the white space and the invisible characters inside: group 1 is the part after the
 * opener, kept as it was. Not a longer name (`<tool_results>`). Built once per tags and
 * opener, on first use: a pattern with Unicode property classes takes milliseconds to
 * build, which every `loom` start paid for each module that made its own at load. Shared,
 * so for `replace` (which starts from the beginning whatever its `lastIndex`).
 */
export function fenceTagPattern(tags: readonly string[], opener: string): RegExp {
  const key = `${opener} ${tags.join(' ')}`;
  let pattern = builtPatterns.get(key);
  if (!pattern) builtPatterns.set(key, (pattern = buildFenceTagPattern(tags, opener)));
  return pattern;
}

function buildFenceTagPattern(tags: readonly string[], opener: string): RegExp {
  const spelled = tags.map((tag) => [...tag].join(`${INVISIBLE}*`));
  const gap = `(?:\\s|${INVISIBLE})*`;
  // `gap(?:/gap)?`, not `gap/?gap`: two gaps side by side could split a run of spaces in
  // every way, quadratic in its length.
  return new RegExp(`${opener}(${gap}(?:/${gap})?(?:${spelled.join('|')}))(?=[\\s/>]|${INVISIBLE}|$)`, 'giu');
}

/** The words' fence: the whole text, or followed by the attached files' fences. */
const USER_FENCE = /^<user_input>\n([\s\S]*?)\n<\/user_input>(?=\n\n<attached_file |$)/;
/** An attached text file's fence (docs/DESIGN.md#attachments); its content cannot hold the closing tag (defused). */
const FILE_FENCE = /<attached_file name="([^"]*)">\n([\s\S]*?)\n<\/attached_file>/g;
const TOOL_FENCE = /^<tool_result name="[^"]*">\n([\s\S]*)\n<\/tool_result>$/;
/** A line that is one of those tags: inside fenced content every such tag is defused, so it is a real one. */
const FENCE_LINE = /^(?:<\/?user_input>|<attached_file name="[^"]*">|<\/attached_file>|<tool_result name="[^"]*">|<\/tool_result>)$/;

/** A text file attached to a user message, as the user attached it. */
export interface AttachedFile {
  name: string;
  text: string;
}

/** What the user sent: their words, the text files and the images they attached. */
export interface UserParts {
  text: string;
  files: AttachedFile[];
  images: string[];
}

export function userParts(content: UserMessage['content']): UserParts {
  const raw = contentText(content);
  // Both groups take part in every match: the defaults are never used.
  const files = [...raw.matchAll(FILE_FENCE)].map(([, name = '', text = '']) => ({ name: unescapeAttribute(name), text: restoreTags(text) }));
  const words = USER_FENCE.exec(raw)?.[1];
  const text = words !== undefined ? restoreTags(words) : files.length ? '' : raw;
  return { text, files, images: contentImages(content) };
}

/** What the user typed, from a stored user message (unchanged when it carries no fence). */
export function userText(content: UserMessage['content']): string {
  return userParts(content).text;
}

/** What the tool said, from a stored tool result (unchanged when it carries no fence). */
export function toolText(content: string): string {
  const said = TOOL_FENCE.exec(content)?.[1];
  return said !== undefined ? restoreTags(said) : content;
}

/** True when the whole text is Loom's fences: a tool result, or a user's words and attached files. */
export function isFenced(content: string): boolean {
  if (TOOL_FENCE.test(content)) return true;
  const rest = content.replace(USER_FENCE, '').replace(FILE_FENCE, '').replaceAll('\n\n', '');
  return rest === '' && content !== '';
}

/** Whether a line of fenced text is one of the fence tags (not content). */
export function isFenceLine(line: string): boolean {
  return FENCE_LINE.test(line);
}

/** Tags the fence defused inside the text (`&lt;user_input>`) as the user wrote them. */
export function restoreTags(text: string): string {
  return text.replace(fenceTagPattern(FENCE_TAGS, '&lt;'), '<$1');
}

/** The inverse of the engine's escapeAttribute for a file name (quotes and angle brackets). */
function unescapeAttribute(value: string): string {
  return value.replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}
