/**
 * The one check on an image before Loom keeps it or sends it to a model: a base64 data URL
 * of a PNG, JPEG, GIF or WebP whose bytes start as that type does, within the size cap.
 * Attachments from a window and image parts in an imported export both pass through it.
 */
import { IMAGE_TYPE_NAMES, IMAGE_TYPES, MAX_IMAGE_BYTES, MAX_IMAGE_DATA_URL_CHARS, type ImageType } from '../../shared/attachments';
import { formatBytes } from '../../shared/byte-size';

const DATA_URL = new RegExp(`^data:(${IMAGE_TYPES.map((t) => t.replace('/', '\\/')).join('|')});base64,([A-Za-z0-9+/]*={0,2})$`);

/** The first bytes each type starts with; WebP is a RIFF file with "WEBP" at offset 8. */
const SIGNATURES: Record<ImageType, (head: Buffer) => boolean> = {
  'image/png': (head) => head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (head) => head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff,
  'image/gif': (head) => ['GIF87a', 'GIF89a'].includes(head.toString('latin1', 0, 6)),
  'image/webp': (head) => head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WEBP',
};

/** Whether `text` has the shape of an image data URL (its bytes unchecked): no text to read in it. */
export function isImageDataUrl(text: string): boolean {
  return DATA_URL.test(text);
}

/** What is wrong with `url` as an image, or null when it is a good one. */
export function imageDataProblem(url: string): string | null {
  if (url.length > MAX_IMAGE_DATA_URL_CHARS) return `it is larger than ${formatBytes(MAX_IMAGE_BYTES)}`;
  const [, matchedType, base64] = DATA_URL.exec(url) ?? [];
  if (matchedType === undefined || base64 === undefined) return `it is not a base64 data URL of a ${IMAGE_TYPE_NAMES} image`;
  const type = matchedType as ImageType;
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length > MAX_IMAGE_BYTES) return `it is larger than ${formatBytes(MAX_IMAGE_BYTES)}`;
  if (!SIGNATURES[type](bytes.subarray(0, 12))) return `its bytes are not a ${type.slice('image/'.length).toUpperCase()} image`;
  return null;
}
