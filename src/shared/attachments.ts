/**
 * Files attached to a message (docs/DESIGN.md#attachments): text files go in as fenced data,
 * images as OpenAI-style image parts. The limits live here so the window can refuse a file
 * at once and the engine checks the same numbers again (the window is not trusted).
 */
import type { ImagePart, UserContentPart, UserMessage } from './types';

export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];
/** The image types as messages name them. */
export const IMAGE_TYPE_NAMES = 'PNG, JPEG, GIF or WebP';

/** A text file's content, in characters. */
export const MAX_TEXT_FILE_CHARS = 100_000;
/** One image's bytes, before base64. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const MAX_ATTACHMENTS = 8;
export const MAX_ATTACHMENT_NAME = 200;
/** Base64 makes 4 characters of every 3 bytes; a data URL adds its short header. */
export const MAX_IMAGE_DATA_URL_CHARS = Math.ceil(MAX_IMAGE_BYTES / 3) * 4 + 64;

export type TextAttachment = { kind: 'text'; name: string; text: string };
/** `dataUrl`: `data:<image type>;base64,<bytes>`. */
export type ImageAttachment = { kind: 'image'; name: string; dataUrl: string };
export type Attachment = TextAttachment | ImageAttachment;

export function isImageType(type: string): type is ImageType {
  return (IMAGE_TYPES as readonly string[]).includes(type);
}

/** The text of a user message, whichever shape its content has. */
export function contentText(content: UserMessage['content']): string {
  if (typeof content === 'string') return content;
  return content
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('\n\n');
}

/** The data URLs of the images a user message carries, in order. */
export function contentImages(content: UserMessage['content']): string[] {
  if (typeof content === 'string') return [];
  return content.filter((part): part is ImagePart => part.type === 'image_url').map((part) => part.image_url.url);
}

/**
 * A user message's content as plain text, each image as a short note: for requests that
 * read a conversation as text (the summariser, the listing label, the session tools).
 */
export function contentAsText(content: UserMessage['content']): string {
  const images = contentImages(content).length;
  if (images === 0) return contentText(content);
  return `${contentText(content)}\n[${images === 1 ? 'an image' : `${images} images`} attached]`;
}

/**
 * The content of a user message with this text and these images: a plain string when there
 * are none, else the text part (none when there are no words) and then the image parts.
 */
export function userContent(text: string, images: readonly string[]): UserMessage['content'] {
  if (images.length === 0) return text;
  const parts: UserContentPart[] = text ? [{ type: 'text', text }] : [];
  for (const url of images) parts.push({ type: 'image_url', image_url: { url } });
  return parts;
}
