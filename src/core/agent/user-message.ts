/**
 * The user message a turn appends: what the user typed in its `<user_input>` fence, each
 * attached text file in an `<attached_file>` fence after it, and the attached images as
 * image parts (docs/DESIGN.md#attachments). The window checked the files already; they are
 * checked again here, since any page can call the contract.
 */
import { IMAGE_TYPE_NAMES, MAX_ATTACHMENTS, MAX_TEXT_FILE_CHARS, contentImages, contentText, userContent, type Attachment } from '../../shared/attachments';
import type { UserMessage } from '../../shared/types';
import { LoomError } from '../errors';
import { imageDataProblem } from '../security/image-data';
import { wrapAttachedFile, wrapUserInput } from '../security/untrusted';

export function buildUserMessage(text: string, attachments: readonly Attachment[] = []): UserMessage {
  if (attachments.length > MAX_ATTACHMENTS) throw refused(`A message can carry at most ${MAX_ATTACHMENTS} files.`);
  if (!text.trim() && attachments.length === 0) throw refused('Type a message first.');
  const blocks = text.trim() ? [wrapUserInput(text)] : [];
  const images: string[] = [];
  for (const file of attachments) {
    if (file.kind === 'text') {
      checkTextFile(file.name, file.text);
      blocks.push(wrapAttachedFile(file.name, file.text));
    } else {
      const problem = imageDataProblem(file.dataUrl);
      if (problem) throw refused(`"${file.name}" cannot be attached: ${problem}.`);
      images.push(file.dataUrl);
    }
  }
  return { role: 'user', content: userContent(blocks.join('\n\n'), images) };
}

/** Attached file fences as buildUserMessage writes them (their content is defused: it cannot close them). */
const ATTACHED_FILE = /<attached_file name="[^"]*">\n[\s\S]*?\n<\/attached_file>/g;

/** `original` with its words replaced by `text` (edit and resend): the files and images it carried stay. */
export function editedUserMessage(original: UserMessage, text: string): UserMessage {
  const files = contentText(original.content).match(ATTACHED_FILE) ?? [];
  const blocks = [...(text.trim() ? [wrapUserInput(text)] : []), ...files];
  return { role: 'user', content: userContent(blocks.join('\n\n'), contentImages(original.content)) };
}

/** What the audit log keeps of the attachments: names and sizes, not the content. */
export function describeAttachments(attachments: readonly Attachment[]): { kind: Attachment['kind']; name: string; chars: number }[] {
  return attachments.map((file) => ({ kind: file.kind, name: file.name, chars: file.kind === 'text' ? file.text.length : file.dataUrl.length }));
}

function checkTextFile(name: string, text: string): void {
  if (text.length > MAX_TEXT_FILE_CHARS)
    throw refused(`"${name}" is too long to attach: text files can have at most ${MAX_TEXT_FILE_CHARS.toLocaleString('en')} characters.`);
  // NUL never appears in text; a file with one is binary, and would reach the model as noise.
  if (text.includes('\u0000')) throw refused(`"${name}" is not a text file; only text files and ${IMAGE_TYPE_NAMES} images can be attached.`);
}

function refused(message: string): LoomError {
  return new LoomError(message, 'bad_attachment');
}
