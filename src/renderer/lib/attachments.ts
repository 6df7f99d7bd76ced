/**
 * Reads a file the user attaches (picker, drop or paste) into what chat.send carries
 * (docs/DESIGN.md#attachments), or refuses it at once with one message naming it. The
 * engine checks everything again; this is so the user hears about it before sending.
 */
import { IMAGE_TYPE_NAMES, MAX_IMAGE_BYTES, MAX_TEXT_FILE_CHARS, isImageType, type Attachment } from '../../shared/attachments';
import { formatBytes } from '../../shared/byte-size';

/** UTF-8 takes at most 4 bytes a character: a bigger file cannot fit the character cap. */
const MAX_TEXT_FILE_BYTES = MAX_TEXT_FILE_CHARS * 4;

class AttachmentError extends Error {}

export async function readAttachment(file: File): Promise<Attachment> {
  const name = file.name || 'pasted file';
  if (file.type.startsWith('image/')) {
    if (!isImageType(file.type)) throw new AttachmentError(`"${name}" cannot be attached: images can be ${IMAGE_TYPE_NAMES}.`);
    if (file.size > MAX_IMAGE_BYTES) throw new AttachmentError(`"${name}" is too large to attach: images can be at most ${formatBytes(MAX_IMAGE_BYTES)}.`);
    return { kind: 'image', name, dataUrl: await asDataUrl(file) };
  }
  if (file.size > MAX_TEXT_FILE_BYTES) throw tooLong(name);
  const text = asText(new Uint8Array(await file.arrayBuffer()));
  if (text === null) throw new AttachmentError(`"${name}" is not a text file; only text files and ${IMAGE_TYPE_NAMES} images can be attached.`);
  if (text.length > MAX_TEXT_FILE_CHARS) throw tooLong(name);
  return { kind: 'text', name, text };
}

/** The bytes as UTF-8 text, or null when they are not text (invalid UTF-8, or a NUL byte). */
function asText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

function asDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.onerror = () => reject(new AttachmentError(`"${file.name}" could not be read.`));
    reader.readAsDataURL(file);
  });
}

function tooLong(name: string): AttachmentError {
  return new AttachmentError(`"${name}" is too long to attach: text files can have at most ${MAX_TEXT_FILE_CHARS.toLocaleString('en')} characters.`);
}
