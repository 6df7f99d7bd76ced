/**
 * Tiny real images for attachment tests: a 1×1 PNG (red) and a 1×1 GIF, as bytes and as
 * the data URLs a window sends.
 */
export const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
export const GIF_1X1 = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');

export const dataUrl = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`;
export const PNG_URL = dataUrl('image/png', PNG_1X1);
export const GIF_URL = dataUrl('image/gif', GIF_1X1);
